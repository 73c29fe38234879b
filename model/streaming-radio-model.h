/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef STREAMING_RADIO_MODEL_H
#define STREAMING_RADIO_MODEL_H

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The flow-level radio of ctHO's Fig. 4 (a documented choice: doc/edge-llm-design.rst,
 *        Streaming radio):
 *        SNR `gamma(d) = gamma_ref (d_ref / d)^alpha`, rate `W log2(1 + gamma(d))`.
 *
 * The paper gives the SNR law but not its constants. The defaults (W = 1 MHz,
 * gamma_ref = 79.5 dB at d_ref = 1 m, alpha = 4) were chosen so that, with 500 tokens
 * of 160 bits streamed after the handover and ctHO's delay of ~0.35 s at 4.5 Gbit/s,
 * no-HO wins below D_bs ~ 375 m and loses by ~2.3 s at 500 m, as in the paper's Fig. 4.
 * Distances below d_ref are taken as d_ref (no singularity at the BS).
 */
struct StreamingRadioModel
{
    double bandwidthHz{1e6};    //!< W, Hz, > 0
    double snrRefDb{79.5};      //!< gamma_ref at d_ref, dB
    double refDistance{1.0};    //!< d_ref, m, > 0
    double pathLossExponent{4}; //!< alpha, > 0

    /**
     * \param distance UE-BS distance, m (>= 0)
     * \return rate in bit/s
     */
    double Rate(double distance) const;

    /**
     * \brief How long streaming \p bits takes to a UE moving along the road.
     *
     * Solves `integral_0^T Rate(|x0 + v t - bsX|) dt = bits` for T: the integral by
     * Gauss-Kronrod quadrature, T by TOMS 748 bracketing (both Boost.Math), to a
     * relative tolerance of 1e-9.
     * \param bits payload, > 0
     * \param x0 UE position when streaming starts, m
     * \param speed UE speed along x, m/s
     * \param bsX serving BS position, m
     * \return T in s
     * \throws std::invalid_argument for bits <= 0 or a non-positive model constant
     */
    double StreamTime(double bits, double x0, double speed, double bsX) const;
};

} // namespace ns3

#endif /* STREAMING_RADIO_MODEL_H */
