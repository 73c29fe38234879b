/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CTHO_FIGURES_H
#define CTHO_FIGURES_H

#include "../studies/fluid-handover-scenario.h"
#include "../studies/road-ue-draw.h"

#include "ns3/handover-scheme-registry.h"
#include "ns3/streaming-radio-model.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The knobs of the ctHO figures (defaults: ctHO Sec. IV-A; doc/edge-llm-design.rst, Road
 *        scenario and Streaming radio).
 */
struct CtHoFigureSettings
{
    uint32_t runs{100};         //!< Monte-Carlo runs per point (run numbers 1..runs)
    RoadUeDraw road;            //!< K = 4, x(0) ~ U[120, 130] m, 20 m/s, C ~ U[1024, C_max]
    FluidHandoverConfig fluid;  //!< Qwen2.5-7B, q = 16, 4.5 Gbit/s, ctHO prefill, T_c = 10 ms
    StreamingRadioModel radio;  //!< Fig. 4 radio
    uint32_t streamTokens{500}; //!< G, tokens streamed after the handover (Fig. 4)
    double tokenBits{160};      //!< Radio bits per streamed token (Fig. 4)
};

/**
 * \ingroup edge-llm
 * \brief One plotted point: mean worst-user delay of a scheme at one x.
 */
struct CtHoFigurePoint
{
    double x{0};        //!< Sweep value
    std::string scheme; //!< ctho, tho, cho, no-ho, or <scheme>-packet
    double mean{0};     //!< Mean worst-user delay, s
    double ci95{0};     //!< 95 % CI half-width, s
    uint32_t runs{0};   //!< Runs averaged
};

/**
 * \ingroup edge-llm
 * \brief Progress of a sweep: (points done, points in all, runs done, runs in all).
 */
using CtHoFigureProgress = std::function<void(uint32_t, uint32_t, uint64_t, uint64_t)>;

/**
 * \ingroup edge-llm
 * \brief The sweeps of ctHO's Figs. 3a-3d and 4 at flow level (and optional
 *        packet-level points), on common random numbers: run r of every point and
 *        scheme sees the UEs of RoadUeDraw::Draw(r).
 *
 * Fig. 3: worst-user handover delay of ctHO, tHO and cHO vs (a) backhaul rate
 * (Gbit/s), (b) prefill slope a (s/token), (c) C_max (tokens), (d) K.
 * Fig. 4: worst-user total streaming delay (handover delay + time to stream G tokens
 * from the target over StreamingRadioModel) vs D_bs, plus no-HO (the UE stays on the
 * source, streaming from the handover time on, no handover delay); the handover
 * boundary is D_bs / 2 and the UEs start 20-30 m before it, as at D_bs = 300 m.
 * "online": worst-user delay of online ctHO (handover times not announced, arrivals
 * foreseen up to the look-ahead) and of clairvoyant ctHO vs the look-ahead.
 */
class CtHoFigures
{
  public:
    /// \return "3a", "3b", "3c", "3d", "4", "online"
    static std::vector<std::string> FigureIds();

    /**
     * \param figure a FigureIds() entry
     * \return the sweep's x values
     * \throws std::invalid_argument for an unknown figure
     */
    static std::vector<double> SweepValues(const std::string& figure);

    /// \return the x axis label of \p figure
    static std::string XLabel(const std::string& figure);

    /// \return the y axis label of \p figure
    static std::string YLabel(const std::string& figure);

    /**
     * \brief The settings of one sweep point: \p base with the swept knob set to \p x.
     */
    static CtHoFigureSettings AtPoint(const std::string& figure,
                                      const CtHoFigureSettings& base,
                                      double x);

    /**
     * \brief The worst-user delay of one flow-level run.
     * \param figure a FigureIds() entry
     * \param settings the point's settings
     * \param scheme "ctho", "tho", "cho", "no-ho" (Fig. 4) or "ctho-online" ("online")
     * \param run run number (selects the UEs)
     * \return seconds
     */
    static double FlowLevelRun(const std::string& figure,
                               const CtHoFigureSettings& settings,
                               const std::string& scheme,
                               uint64_t run);

    /**
     * \brief Every flow-level point of a figure.
     * \param figure a FigureIds() entry
     * \param base the settings every point starts from
     * \param progress called after each run and after each point (may be empty): the
     *        caller decides how often to print
     * \return points ordered by x, then scheme
     */
    static std::vector<CtHoFigurePoint> RunFlowLevel(const std::string& figure,
                                                     const CtHoFigureSettings& base,
                                                     const CtHoFigureProgress& progress);

    /// \return the schemes of \p figure's flow-level curves
    static std::vector<std::string> Schemes(const std::string& figure);

    /**
     * \brief The figure's title: what it shows, every parameter held fixed over its sweep
     *        (K, C_max, backhaul rate, prefill slope a, model and q, D_bs, ...; the swept one
     *        is the x axis), and the true runs per point.
     * \param figure a FigureIds() entry
     * \param base the settings every point starts from (base.runs: flow-level runs)
     * \param packetRuns runs per packet-level point (0: no packet-level points)
     * \return e.g. "ctHO Fig. 3a: worst-user delay; K = 4, C ~ U[1024, 4096] tokens, ...;
     *         100 runs per point, 95% CI"
     */
    static std::string Title(const std::string& figure,
                             const CtHoFigureSettings& base,
                             uint32_t packetRuns);

    /**
     * \param curve a curve with a scheduler: a scheme's name, or "ctho-online" (ctHO with
     *        its handovers not announced)
     * \return the registry's scheme the curve runs (HandoverSchemeRegistry)
     * \throws std::invalid_argument for a curve without one ("no-ho")
     */
    static const HandoverScheme& Scheme(const std::string& curve);

    /**
     * \param settings a point's settings
     * \param curve as for Scheme()
     * \return the point's flow-level config running the curve's scheme (its scheduler type
     *         and attributes)
     * \throws std::invalid_argument as Scheme()
     */
    static FluidHandoverConfig FluidConfig(const CtHoFigureSettings& settings,
                                           const std::string& curve);
};

} // namespace ns3

#endif /* CTHO_FIGURES_H */
