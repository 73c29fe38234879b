/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ROAD_HANDOVER_SCENARIO_H
#define ROAD_HANDOVER_SCENARIO_H

#include "multi-cell-scenario.h"
#include "road-ue-draw.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Knobs of the paper's road scenario at packet level (ctHO Sec. IV-A).
 *
 * Two BSs (eNBs over LTE, gNBs over NR) at x = 0 (source) and x = bsDistance (target),
 * an X2 (NR: X2/Xn) point-to-point link
 * between them as the backhaul, K UEs at x ~ Unif[startMin, startMax] m at the road's
 * time 0, at constant speed; UE i hands over when it crosses x = boundary, at
 * tau_i = (boundary - x_i(0)) / speed, through a real X2 handover requested at that
 * instant. The road's time 0 is W s into the simulation: a warm-up, a multiple of T_c,
 * in which every session's prompt is prefilled and decoding has begun. The UEs are RoadUeDraw's for
 * the current run (the flow level draws the same ones); each UE's prompt is sized so that, with the
 * tokens decoded before the handover, its context at the handover is the drawn C_i (within a few
 * tokens: the prompt's radio latency is estimated as uplinkLatency).
 *
 * With mobilityTrace (ScenarioCommonConfig) the trace's vehicles replace the draw (numUes,
 * startMin, startMax, speed and boundary are not read; handoverDisabled is refused): one UE
 * per vehicle on the same two BSs, as the engine's mobility "trace" builds it (each
 * vehicle's prompt drawn in [contextMin, contextMax] and prefilled on its home BS's GPU when
 * it enters, a handover at every change of its strongest cell, either way; the run as long
 * as the trace). There is no warm-up (W = 0: handover times are simulation times) and no
 * flow-level replay.
 */
struct RoadHandoverConfig : ScenarioCommonConfig
{
    /// The road's defaults where they differ from the engine's hexagonal macro cells: 500
    /// tokens after the handover, LTE's default path loss (Friis; the exponent 3.0 then
    /// unused) and a 30 dBm BS. The knobs the road shares with the engine (the RAT, radio,
    /// backhaul link, LLM, sessions and planner) are ScenarioCommonConfig's; the road's own
    /// follow.
    RoadHandoverConfig()
    {
        tokensAfterHandover = 500;
        pathlossModel = "";
        pathlossExponent = 3.0;
        bsTxPowerDbm = 30;
    }

    RoadUeDraw road;        //!< K, positions, speed, contexts (the flow level's)
    double bsDistance{300}; //!< D_bs, m
    /// When the UEs send their prompts (a UE not attached by then sends it once attached);
    /// 0: automatic, RoadRadioSettings::promptTime
    Time promptTime{Seconds(0)};
    Time uplinkLatency{MilliSeconds(20)}; //!< Expected prompt latency, for sizing prompts
    Time maxSimTime{Seconds(0)};          //!< Safety stop; 0: W + last tau + tailTime
    Time tailTime{Seconds(20)};           //!< Simulated time allowed after the last
                                          //!< boundary crossing (automatic handovers
                                          //!< come later than the crossing), on top of
                                          //!< the slowest restore any scheme could need
                                          //!< (all caches in a row, or K prefills of the
                                          //!< longest context) and the stream after it
    std::string handoverAlgorithm;        //!< "": handovers requested at the boundary
                                          //!< and announced (ctHO); else the RAT's handover
                                          //!< algorithm TypeId, e.g.
                                          //!< "ns3::A3RsrpHandoverAlgorithm" (online; NR:
                                          //!< "ns3::NrA3RsrpHandoverAlgorithm", or the LTE name)
    bool handoverDisabled{false};         //!< No-HO: the UEs stay on the source (Fig. 4's baseline)
    uint32_t streamTokens{0};             //!< G: measure the time to receive G tokens after the
                                          //!< handover (no-HO: after the boundary crossing); 0: off
    /// Where the arrival predictor expects handovers, m (NaN: the boundary)
    double predictedHandoverX{std::numeric_limits<double>::quiet_NaN()};
    /// Contention RA preambles per cell (ns3::LteEnbMac, NR: ns3::NrGnbMac
    /// NumberOfRaPreambles); the other 64 - it are dedicated to incoming handovers. 0:
    /// automatic (RadioSettings())
    uint32_t raPreambles{0};
    /// ns3::LteEnbMac (NR: ns3::NrGnbMac) PreambleTransMax. 0: automatic (RadioSettings())
    uint32_t preambleTransMax{0};
    /// LTE: ns3::LteEnbRrc::SrsPeriodicity, ms. 0: automatic (RadioSettings())
    uint32_t srsPeriodicity{0};
    /// true: skip the check that the dedicated preambles serve every handover (a study
    /// or test that provokes the RRC's handover failures on purpose)
    bool allowHandoverFailures{false};
    /// true: the warm-up prefills the K prompts one after another on the source's GPU (the
    /// road's time 0 then grows with K by sum_i (T_c + p(C_i))); false: the source takes each
    /// prompt as prefilled on arrival (EdgeLlmNode PrefillPromptsOnGpu false). Over NR
    /// (ran "nr") Run() always uses the GPU warm-up, the one validated over nr
    bool warmupOnGpu{false};

    /// The RACH, SRS and prompt-time settings a run uses.
    struct RadioSettings
    {
        uint32_t raPreambles{52};      //!< Contention preambles (64 - dedicated)
        uint32_t preambleTransMax{50}; //!< RA attempts; a dedicated preamble is held
                                       //!< preambleTransMax x 8 ms
        uint32_t srsPeriodicity{40};   //!< SRS slots per cell, ms
        Time promptTime;               //!< When the first prompt is sent
        Time promptSpacing;            //!< UE i (IMSI order) sends at promptTime + i x it
        Time promptMargin;             //!< > 0: every session starts decoding at the last
                                       //!< prompt's time + uplinkLatency + this
        uint32_t peakHandovers{0};     //!< Most crossings within one preamble hold time
    };

    /**
     * \brief The RACH, SRS and prompt-time settings a run uses: each knob as given, or,
     *        if 0, chosen from K and the drawn handover times (doc/edge-llm-design.rst, "UE
     *        capacity"): SRS the shortest of 40, 80, 160, 320 ms >= 2 K; K <= 12: ns-3's
     *        52 contention preambles and PreambleTransMax 50, else PreambleTransMax 10 and
     *        min(28, 4 floor((64 - peak) / 4)) contention preambles; prompts at 100 ms,
     *        plus 2 ms per UE beyond 12, and beyond 12 UEs 2 ms apart, decoding from
     *        300 ms after the last one's expected arrival.
     * \return the settings (Validate() checks them against K)
     */
    RadioSettings GetRadioSettings() const;

    /**
     * \brief Check every knob.
     * \throws std::invalid_argument naming the knob and its valid range
     */
    void Validate() const;

    /**
     * \brief The road as the scenario engine's config (the road is a preset of
     *        MultiCellScenario): two sites bsDistance apart on a "road" layout joined by the
     *        RAN's own X2/Xn cable (backhaul "x2"), the road's radio and its RACH and SRS as
     *        GetRadioSettings() chooses them, scripted handovers at the boundary (or the RRC's
     *        handoverAlgorithm), the LLM, GPU and decoding knobs, and the road's stop rule
     *        (streamTokens: each UE's stream after its handover; failedHandoverDone; 1 ms
     *        drain grace); over NR the GPU warm-up (prefillPromptsOnGpu), as
     *        Run() uses it. Run() also sets maxSimTime and warmDecodeStart from its warm-up
     *        plan. The UEs are RoadHandoverScenario's (ScenarioUe, from the draw).
     * \return the engine's config; its Validate() checks the knobs the road shares with
     *         every scenario
     */
    MultiCellConfig GetEngineConfig() const;
};

/**
 * \ingroup edge-llm
 * \brief One run of the road scenario for one scheme: the engine's result
 *        (MultiCellScenario::Simulate) with what the road adds.
 *
 * The road's view of the engine's fields: \c ues in draw order, each with the road's
 * drawn context; \c kvBytesSent and \c kvBytesReceived of the source-to-target connection
 * (on a mobility trace: the engine's fields as they are, both directions);
 * \c predictionError over those UEs; \c complete: every UE handed over and resumed (with
 * streamTokens: received its G-th token after the handover).
 */
struct RoadHandoverResult : MultiCellResult
{
    uint16_t sourceCellId{0};                  //!< The source BS's cell id (the RRC's)
    uint16_t targetCellId{0};                  //!< The target BS's cell id (the RRC's)
    uint64_t prefillLength{0};                 //!< L, the largest of the batches' L
    std::vector<EdgeLlmHandoverBatch> batches; //!< Every planned batch, in time order
    double predictedWorst{0};                  //!< max_i predictedDelay, s (NaN if one is missing)
    double measuredWorst{0};                   //!< max_i measuredDelay, s (NaN if one is missing)
    uint32_t timedOut{0};                      //!< Transfers that hit TransferTimeout
    uint32_t handoverFailures{0}; //!< Sessions whose handover the RRC aborted (HandoverFailed
                                  //!< at the source: the source serves them again)
    uint32_t latePrompts{0};      //!< Prompts sent after promptTime (the UE attached later)
    double warmup{0};             //!< W: the road's time 0 in simulation time, s
    double restoredWorst{0};      //!< max_i restoredDelay, s (NaN if one is missing)
    double streamWorst{0};        //!< max_i streamDelay, s (NaN if one is missing)
    /// Flow level on the actual handover times and contexts, all known in advance:
    /// ctHO's clairvoyant plan (the yardstick of online ctHO); NaN on a mobility trace
    double clairvoyantWorst{0};
    /// Flow level on the actual times and contexts with the same policy as the run
    /// (online batches if the handovers were not announced); NaN on a mobility trace or
    /// for a policy without a flow-level model
    double fluidWorst{0};
};

/**
 * \ingroup edge-llm
 * \brief Builds and runs the road scenario over LTE or NR (RoadHandoverConfig::ran) with
 *        EPC and X2/Xn (the module's main job: examples/road-handover/edge-llm-lte-handover.cc and
 *        edge-llm-nr-handover.cc, and the SYSTEM tests).
 */
class RoadHandoverScenario
{
  public:
    /**
     * \brief Run once, then Simulator::Destroy().
     *
     * The UEs are cfg.road.Draw(current run) (RngSeedManager), so every scheme, and
     * the flow level, sees the same UEs; or, with cfg.mobilityTrace, the trace's vehicles.
     * \param config the knobs (validated)
     * \param schedulerType e.g. "ns3::CtHoScheduler"
     * \return what happened
     * \throws std::invalid_argument for a bad config, or a schedulerType that is no
     *         creatable HandoverScheduler (naming the valid ones)
     */
    static RoadHandoverResult Run(const RoadHandoverConfig& config,
                                  const std::string& schedulerType);
};

} // namespace ns3

#endif /* ROAD_HANDOVER_SCENARIO_H */
