/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PRE_TRANSFER_SCHEDULER_H
#define PRE_TRANSFER_SCHEDULER_H

#include "handover-scheduler.h"

#include "ns3/nstime.h"

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Proactive KV pre-transfer (beyond both papers; doc/edge-llm-design.rst, "Proactive KV
 *        pre-transfer"): when a UE's handover to a cell becomes likely, its source sends
 *        the stable prefix of the UE's KV cache (the tokens decoded so far) to that cell
 *        ahead of the handover; at the handover only the rest is planned, by an inner
 *        policy: a batch policy (ctHO, tHO, cHO) splits the rest into prefill and
 *        transfer; a slot policy (ImpactHO and its baselines) sends the rest in importance
 *        order, counting the entries sent ahead as received.
 *
 * The trigger (Trigger attribute) is either an A3 entering condition with its own offset
 * and time-to-trigger (the neighbour's RSRP exceeds the serving cell's by A3Offset dB for
 * TimeToTrigger), or a predicted crossing: LeadTime before the handover predicted from
 * the UE's position and speed. A pre-transfer sends at most RateShare of the link's rate
 * (shared equally by the pre-transfers on the link); with YieldToHandovers it pauses while
 * a planned handover batch uses the link (idle capacity only), else it keeps its share and
 * the batch is planned on the rest of the link. Pre-sent bytes at a cell the UE does not
 * hand over to (another cell, or none) are dropped HoldTime after the source stops
 * sending them and counted as waste.
 *
 * This object is the policy: its attributes, its trigger, and the inner policy's plan of
 * the rest (PlanBatch(), SelectNextTransfer() and every slot hook are the inner policy's).
 * With a slot policy inside, the cache is sent ahead in importance order (the most
 * important entries first, each with its 3-byte coordinate) and the bytes sent ahead
 * count in the share the inner policy sees (SetBytesSentAhead()). The flow-level engines
 * (PreTransferFluidScenario, and ImpactHoFluidScenario with ImpactHoFluidConfig::
 * preTransfer) move the bytes at flow level, EdgeLlmNode at packet level.
 */
class PreTransferScheduler : public HandoverScheduler
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    /// What makes a handover likely (attribute Trigger).
    using Trigger = PreTransferSettings::Trigger;
    /// RSRP_target - RSRP_source > A3Offset for TimeToTrigger
    static constexpr Trigger A3_ENTERING = PreTransferSettings::A3_ENTERING;
    /// LeadTime before the handover predicted from position, speed
    static constexpr Trigger PREDICTED_CROSSING = PreTransferSettings::PREDICTED_CROSSING;

    PreTransferScheduler();
    ~PreTransferScheduler() override;

    /// \return "pre-" and the inner policy's name ("pre-ctho", ...)
    std::string GetSchemeName() const override;

    /// \return the inner policy's choice (earliest deadline first for ctHO, tHO, cHO)
    std::size_t SelectNextTransfer(const std::vector<KvTransferJob>& jobs) const override;

    /// \return the inner policy's: true for ImpactHO's family (importance order)
    bool AllocatesSlots() const override;
    /// \return the inner policy's slot length (0 for a batch policy)
    Time GetSlotLength() const override;
    /// \return the inner policy's transfer window (0 for a batch policy)
    Time GetTransferWindow() const override;

    /**
     * \brief The inner slot policy's new transfer (HandoverScheduler::AddSlotTransfer): the
     *        whole cache; the bytes SetBytesSentAhead() gave count as sent.
     * Aborts as the inner policy's (a batch policy, a session already transferring).
     */
    void AddSlotTransfer(uint64_t sessionId,
                         uint16_t target,
                         Time arrival,
                         uint64_t bytes,
                         const AccuracyUtility& utility) override;
    /// \return the inner policy's answer; the session's bytes sent ahead are forgotten
    uint16_t RemoveSlotTransfer(uint64_t sessionId) override;
    /// \return the inner policy's answer
    bool HasSlotTransfers() const override;

    /**
     * \brief The inner slot policy's slot, each session's sent bytes counting the bytes
     *        sent ahead of its handover (the first entries of its importance order).
     */
    std::vector<SlotShare> ShareSlot(Time now,
                                     const SentBytes& sent,
                                     const SlotBudget& budget) const override;

    /**
     * \brief With a slot policy inside: the first \p bytes of \p sessionId's cache in
     *        importance order are at its target already (committed by its pre-transfer);
     *        ShareSlot() counts them as sent. Call before AddSlotTransfer(); forgotten by
     *        RemoveSlotTransfer().
     * \param sessionId the session
     * \param bytes KV bytes (coordinates not counted), <= the cache's bytes
     */
    void SetBytesSentAhead(uint64_t sessionId, uint64_t bytes) override;

    /// \return this policy's attributes (HandoverScheduler::GetPreTransfer)
    std::optional<PreTransferSettings> GetPreTransfer() const override;

    /// \return the inner slot policy's allocation (HandoverScheduler::AllocateSlot)
    SlotAllocation AllocateSlot(const std::vector<SlotUser>& users,
                                double budgetBits) const override;

    /// \return the inner policy's L for the rest of each UE's cache
    uint64_t ChoosePrefillLength(const CtHoPlanner& planner,
                                 const std::vector<CtHoUe>& batch) const override;

    /**
     * \brief Set the inner policy (InnerScheduler attribute).
     * \param spec a HandoverScheduler's TypeId name, optionally with attributes of that
     *        type in ns-3's ObjectFactory form, e.g. "ns3::CtHoScheduler" or
     *        "ns3::ImpactHoScheduler[Policy=WaterFilling]" ("Type[Name=Value|Name=Value]";
     *        attributes not given take their defaults)
     * \throws std::invalid_argument naming InnerScheduler and the valid names for an
     *         unknown type or a PreTransferScheduler, and the type's attributes for an
     *         unknown attribute, a bad value or a malformed list
     */
    void SetInnerScheduler(std::string spec);

    /**
     * \brief Set the inner policy to an object already made and configured (a flow-level
     *        preset wraps its own policy this way); InnerScheduler records its TypeId name
     *        (not its attributes).
     * \param inner a batch or slot policy
     * \throws std::invalid_argument naming InnerScheduler for a null policy or one that
     *         sends ahead itself (a PreTransferScheduler)
     */
    void SetInnerPolicy(Ptr<HandoverScheduler> inner);

    /**
     * \brief The InnerScheduler check alone (programs check their arguments with it before
     *        anything is built).
     * \param spec a TypeId name, optionally with attributes (as SetInnerScheduler)
     * \throws std::invalid_argument as SetInnerScheduler
     */
    static void CheckInnerScheduler(const std::string& spec);

    /// \return the inner policy (created from InnerScheduler)
    Ptr<HandoverScheduler> GetInnerScheduler() const;

    /**
     * \brief Where on a straight road from the source BS (x = 0) to the target BS (x =
     *        bsDistance) the A3 entering condition starts to hold, under a log-distance
     *        path loss of exponent n with equal transmit powers: RSRP_t - RSRP_s =
     *        10 n log10(x / (D - x)) > offset gives x = D k / (1 + k), k = 10^(offset / 10 n).
     * \param bsDistance D, m, > 0
     * \param pathlossExponent n, > 0 (2: Friis, LTE's default path loss)
     * \param offsetDb the A3 offset, dB
     * \return x, m, in (0, D)
     * \throws std::invalid_argument naming the field for a non-finite or non-positive value
     */
    static double A3EnteringPosition(double bsDistance, double pathlossExponent, double offsetDb);

    /**
     * \brief When this policy's trigger fires for a UE on the straight road from the source
     *        (x = 0) to the target (x = bsDistance): A3: the UE reaches
     *        A3EnteringPosition() (at once if it starts past it), plus TimeToTrigger;
     *        predicted crossing: max(0, handoverTime - LeadTime).
     * \param startX the UE's position at time 0, m
     * \param speed its speed towards the target, m/s, > 0
     * \param handoverTime its predicted handover time, s, >= 0
     * \param bsDistance D, m, > 0
     * \param pathlossExponent n, > 0
     * \return the trigger time, s, >= 0 (may be after the handover: no pre-transfer)
     */
    double RoadTriggerTime(double startX,
                           double speed,
                           double handoverTime,
                           double bsDistance,
                           double pathlossExponent) const;

  protected:
    void DoDispose() override;

  private:
    std::string m_innerType;        //!< InnerScheduler
    Ptr<HandoverScheduler> m_inner; //!< Created from m_innerType
    /// Slot policy inside: session -> KV bytes its pre-transfer committed
    std::map<uint64_t, uint64_t> m_sentAhead;
    Trigger m_trigger;     //!< Trigger
    double m_a3Offset;     //!< A3Offset, dB
    Time m_timeToTrigger;  //!< TimeToTrigger
    Time m_leadTime;       //!< LeadTime
    double m_rateShare;    //!< RateShare
    bool m_yield;          //!< YieldToHandovers
    Time m_holdTime;       //!< HoldTime
    Time m_pingPongTime;   //!< PingPongTime
    bool m_follow;         //!< FollowDecoding
    Time m_pacingInterval; //!< PacingInterval
};

} // namespace ns3

#endif /* PRE_TRANSFER_SCHEDULER_H */
