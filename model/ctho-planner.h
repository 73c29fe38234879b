/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef CTHO_PLANNER_H
#define CTHO_PLANNER_H

#include "prefill-time-model.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief One UE of a ctHO batch: when it hands over and how long its context is.
 */
struct CtHoUe
{
    uint64_t ueId{0};          //!< Caller's identifier, echoed in the plan
    double handoverTime{0};    //!< tau_i, s, finite and >= 0
    uint64_t contextTokens{0}; //!< C_i, tokens decoded up to tau_i, >= 1
};

/**
 * \ingroup edge-llm
 * \brief The plan for one UE at a given prefill length L (ctHO Sec. II-III).
 */
struct CtHoUePlan
{
    uint64_t ueId{0};           //!< As in the input
    double handoverTime{0};     //!< tau_i, s
    uint64_t contextTokens{0};  //!< C_i, tokens
    uint64_t prefillTokens{0};  //!< n_pf_i = min(C_i, L) (ctHO Eq. 2)
    uint64_t transferTokens{0}; //!< n_tx_i = (C_i - L)^+ (ctHO Eq. 2)
    double prefillDone{0};      //!< T_pf(L) if n_pf_i > 0, else tau_i (nothing to prefill), s
    double transferDone{0};     //!< T_tx_i of the FIFO/EDF schedule, tau_i if n_tx_i = 0, s
    double delay{0};            //!< D_i = max(prefillDone, transferDone) - tau_i, s
};

/**
 * \ingroup edge-llm
 * \brief What a packet-level backhaul adds to the fluid model of ctHO Sec. II before the
 *        target holds a UE's request (and can start the batch's prefill) and its KV bytes.
 *        All zero, the default, is the papers' model (the flow level uses it).
 *
 * At a handover the source sends the target a transfer request carrying the ids of the
 * n_pf tokens to prefill; requests (and an online batch's close message) go ahead of any
 * queued KV bytes but behind the bytes already handed to the transport, in handover
 * order. Request k leaves the source at
 * `q_k = max(q_{k-1}, tau_k + min(closeAhead, (B_{k-1} - tau_k)^+), controlFreeAt)
 * + requestTime + idTimePerToken n_pf_k` (B_{k-1}: when the backlog and the requests and
 * KV bytes of the UEs before k have left, the `busy` below; the KV bytes already in the
 * transport go first, at most a send buffer's worth) and reaches the target at
 * q_k + pathDelay; the close message leaves at
 * `q_c = max(q_K, closeSentAt + min(closeAhead, (B - closeSentAt)^+)) + closeTime`, B the
 * time the batch's last KV byte leaves. The batch starts on the first T_c boundary at or
 * after the last arrival, tau_K and gpuFreeAt. On the backhaul every UE's request
 * precedes its KV bytes: `busy = max(busy, tau_k) + requestTime + idTimePerToken n_pf_k
 * + n_tx_k / R`, and its KV arrives at busy + pathDelay. Multi-hop store-and-forward of
 * the last packet is not modelled.
 */
struct CtHoSignalling
{
    double pathDelay{0};      //!< One-way propagation delay of the path, s, >= 0
    double controlFreeAt{0};  //!< Bytes already in the transport have left the source by, s
    double requestTime{0};    //!< Wire time of a request without token ids (and of the
                              //!< frame that ends its transfer), s, >= 0
    double idTimePerToken{0}; //!< Wire time of one forwarded token id, s, in [0, 1/R)
    double closeTime{0};      //!< Wire time of a batch-close message, s, >= 0
    double closeSentAt{-1};   //!< Online batch: the close leaves at or after, s; < 0: none
    /// The most the bytes queued in the transport ahead of a request or an online batch's
    /// close take to leave (planning: the send buffer's drain time; at the close: what is
    /// queued), s, >= 0. Request k waits min(closeAhead, (B_{k-1} - tau_k)^+), the close
    /// min(closeAhead, (KV busy end - closeSentAt)^+)
    double closeAhead{0};
    /// Online batch: the batcher sends the close this much before the latest instant at
    /// which it still arrives by t_s (room for a packet already on the wire and for the
    /// header estimates), s, >= 0; the plan itself does not use it
    double closeMargin{0};
    /// The target GPU is busy with earlier batches until, s (0: idle); the batch starts
    /// on the first T_c boundary at or after it
    double gpuFreeAt{0};
};

/**
 * \ingroup edge-llm
 * \brief A whole batch plan: L, the two delay terms, and every UE's plan.
 */
struct CtHoPlan
{
    uint64_t prefillLength{0};         //!< L in {0, ..., C_max}
    double batchStart{0};              //!< t_s: first T_c boundary >= tau_K, arrivals, gpuFreeAt, s
    double prefillDone{0};             //!< T_pf(L) = t_s + p(L), s (t_s when L = 0)
    double prefillDelay{0};            //!< f(L): 0 if L = 0, else T_pf(L) - tau_1, s
    double transferDelay{0};           //!< g(L), least common transfer bound, s
    double worstDelay{0};              //!< V(L) = max(f, g) = max_i D_i, s
    double backhaulTokensPerSecond{0}; //!< R, tokens/s
    std::vector<CtHoUePlan> ues;       //!< One entry per input UE, in input order
};

/**
 * \ingroup edge-llm
 * \brief ctHO: choose the prefill length L and the backhaul schedule that minimize
 *        the worst-user handover delay (Lee et al., arXiv:2603.28018, Props. 1-2 and
 *        the rate-scheduling policy of Sec. III-B; doc/edge-llm-design.rst, ctHO delay).
 *
 * Pure math: no simulator state; every time is in seconds, every length in tokens.
 *
 * For a prefill length L, UE i prefills its first n_pf_i = min(C_i, L) tokens in
 * one batch at the target that starts on the first T_c boundary at or after the
 * last handover and ends at T_pf(L) = t_s + p(L); the other n_tx_i = (C_i - L)^+
 * tokens cross the backhaul of R tokens/s, one UE at a time at full rate, in
 * earliest-deadline order d_i = tau_i + g(L), which is FIFO by tau (ties by input
 * order). The transfer bound is the full form
 * `g(L) = max_{j<=k} [(sum_{i=j..k} n_tx_i)/R - (tau_k - tau_j)]^+`, exact also when
 * the backhaul idles; the FIFO fluid recursion `busy = max(busy, tau_i) + n_tx_i/R`
 * attains it in O(K).
 *
 * At packet level (SetSignalling) the requests' wire time, the token ids they forward
 * and the path delay enter both terms (CtHoSignalling).
 *
 * PlanOptimal() finds the integer L* = argmin V(L), V = max(f, g): f is
 * non-decreasing and g non-increasing in L, so a binary search for their crossing
 * over {1, ..., C_max} plus the candidates 0 and C_max costs O(K log K + K log C_max).
 * With an online close that may wait behind queued KV (closeSentAt >= 0, closeAhead > 0)
 * f is monotone only where the KV ends before the close is sent or closeAhead after it;
 * the crossing is searched in each of those two ranges and every L between them (about
 * closeAhead R / (1 - idTimePerToken R) tokens per transferring UE) is evaluated, so the
 * result stays exact. Among equal minima the smallest L (least GPU work) is returned.
 */
class CtHoPlanner
{
  public:
    /**
     * \param backhaulTokensPerSecond R = backhaul bit/s / s_KV, finite and > 0
     * \param prefill the target GPU's batch prefill time p(L)
     * \param batchPeriod T_c, s, in [0, 3600] (0: the batch starts at tau_K)
     * \throws std::invalid_argument naming the parameter and its range
     */
    CtHoPlanner(double backhaulTokensPerSecond, PrefillTimeModel prefill, double batchPeriod);

    /**
     * \brief ctHO: the plan at L* = argmin V(L) over L in {0, ..., C_max}.
     * \param ues at least one UE; any order; handover times >= 0; contexts >= 1
     * \throws std::invalid_argument for an empty batch or an invalid UE field
     */
    CtHoPlan PlanOptimal(const std::vector<CtHoUe>& ues) const;

    /**
     * \brief Where f(L) may not be monotone: a request (or an online close) waits behind
     *        min(closeAhead, KV still queued when it is sent), which varies with L over a
     *        few tokens' worth of KV time each (closeAhead x R). Outside these spans f is
     *        non-decreasing and g non-increasing; PlanOptimal evaluates every L inside.
     * \param ues as for PlanOptimal()
     * \return disjoint spans [lo, hi) within [1, C_max + 1), sorted; empty when
     *         closeAhead is 0
     * \throws std::invalid_argument as for PlanOptimal()
     */
    std::vector<std::pair<uint64_t, uint64_t>> IrregularSpans(const std::vector<CtHoUe>& ues) const;

    /**
     * \brief The prefill lengths among which max(f, g) over {0, ..., C_max} has its
     *        smallest argmin: 0, C_max, every L in \p spans, and in each piece between
     *        them the crossing (the smallest L with f >= g), its predecessor and the
     *        piece's last L (ctHO Sec. III-A, the proposition after Prop. 2).
     * \param cmax C_max, tokens
     * \param spans sorted spans [lo, hi) where f may not be monotone (IrregularSpans)
     * \param prefillAtLeastTransfer f(L) >= g(L); false then true on each piece
     * \return the candidates, ascending, each once
     */
    static std::vector<uint64_t> CandidateLengths(
        uint64_t cmax,
        const std::vector<std::pair<uint64_t, uint64_t>>& spans,
        const std::function<bool(uint64_t)>& prefillAtLeastTransfer);

    /**
     * \brief The plan at a given L: tHO is L = C_max, cHO is L = 0.
     * \param ues as for PlanOptimal()
     * \param prefillLength L, any value >= 0 (L > C_max pads the batch to L)
     * \throws std::invalid_argument as for PlanOptimal()
     */
    CtHoPlan PlanWithPrefillLength(const std::vector<CtHoUe>& ues, uint64_t prefillLength) const;

    /**
     * \brief t_s, the first T_c boundary at or after tau (a boundary up to 1e-9 T_c
     *        before tau counts, but t_s is never before tau).
     * \param lastHandoverTime tau_K, s
     * \return t_s in s
     */
    double BatchStart(double lastHandoverTime) const;

    /**
     * \brief The same for any batch period (ctHO Sec. II): the flow-level core's GPU uses it.
     * \param lastHandoverTime tau_K (or when the batch is ready), s
     * \param batchPeriod T_c, s (0: no alignment, t_s = tau_K)
     * \return t_s in s
     */
    static double BatchStart(double lastHandoverTime, double batchPeriod);

    /**
     * \brief Online use: the backhaul is busy with earlier transfers until \p time (s),
     *        so this batch's FIFO schedule starts then (`busy = max(time, tau_1)` in the
     *        recursion). Default 0: an idle backhaul, as in ctHO.
     * \throws std::invalid_argument for a negative or non-finite time
     */
    void SetBackhaulFreeAt(double time);

    /**
     * \brief Packet level: the request, id and close-message wire times and the path
     *        delay (CtHoSignalling); without it the papers' fluid model.
     * \param signalling times in s; every field finite, pathDelay, requestTime,
     *        closeTime, closeAhead, closeMargin, gpuFreeAt >= 0, controlFreeAt >= 0, idTimePerToken
     * in [0, 1/R) (an id costs less wire time than its KV, which keeps g non-increasing in L)
     * \throws std::invalid_argument naming the field and its range
     */
    void SetSignalling(const CtHoSignalling& signalling);

    /// \return R, tokens/s
    double GetBackhaulTokensPerSecond() const;

  private:
    /// UEs sorted by (tau, input index), with the derived batch constants.
    struct Batch
    {
        std::vector<CtHoUe> sorted;          //!< By (tau, input index)
        std::vector<std::size_t> inputIndex; //!< sorted[k] is input UE inputIndex[k]
        uint64_t maxContext{0};              //!< C_max, tokens
    };

    /// t_s at prefill length L: after tau_K, every request and the close message
    double BatchStartAt(const Batch& batch, uint64_t prefillLength) const;
    /// Wire time of UE \p ue's request at prefill length L, s
    double RequestTime(const CtHoUe& ue, uint64_t prefillLength) const;
    /// When the link, busy until \p busy, has also sent UE \p ue's request and KV at L, s
    double LinkDone(double busy, const CtHoUe& ue, uint64_t prefillLength) const;
    /// When the batch's last byte (requests and KV) leaves the source at L, s
    double BusyEnd(const Batch& batch, uint64_t prefillLength) const;
    /// When the link has sent the backlog and the first \p count UEs (handover order) of
    /// the batch at L, s (non-increasing in L)
    double BusyAfter(const Batch& batch, uint64_t prefillLength, std::size_t count) const;
    /// The smallest L in [lo, hi) for which \p holds (monotone: false then true), else hi
    static uint64_t SmallestL(uint64_t lo, uint64_t hi, const std::function<bool(uint64_t)>& holds);

    Batch Prepare(const std::vector<CtHoUe>& ues) const;
    double PrefillDelay(const Batch& batch, uint64_t prefillLength) const;
    double TransferDelay(const Batch& batch, uint64_t prefillLength) const;
    CtHoPlan Evaluate(const Batch& batch, uint64_t prefillLength) const;

    double m_rate;               //!< R, tokens/s
    PrefillTimeModel m_prefill;  //!< p(L)
    double m_batchPeriod;        //!< T_c, s
    double m_backhaulFreeAt{0};  //!< Backlog of earlier transfers ends at, s
    CtHoSignalling m_signalling; //!< Packet-level additions (all zero: fluid)
};

} // namespace ns3

#endif /* CTHO_PLANNER_H */
