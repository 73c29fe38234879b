/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PREFILL_ENGINE_H
#define PREFILL_ENGINE_H

#include "prefill-time-model.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class EdgeLlmServingGpu;

/**
 * \ingroup edge-llm
 * \brief One GPU that runs prefill batches one after another (doc/edge-llm-design.rst, Prefill
 * time).
 *
 * A batch is identified by a key and has a known size; it starts once every member
 * has joined, on the first batching-period boundary at or after the latest of:
 * the members' handover times, the last join, and the end of the previous batch
 * on this GPU (ctHO Sec. II: `t_s = ceil(tau_K / T_c) T_c`). It lasts p(L) for its
 * prefill length L, then every member's callback runs.
 */
class PrefillEngine : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    PrefillEngine();
    ~PrefillEngine() override;

    /**
     * \brief TracedCallback signature for a batch event.
     * \param [in] batchKey the batch
     * \param [in] prefillLength L, tokens
     * \param [in] members sessions in the batch
     */
    typedef void (*BatchTracedCallback)(uint64_t batchKey,
                                        uint64_t prefillLength,
                                        uint32_t members);

    /**
     * \brief Join a batch; the batch runs when \p batchSize members have joined.
     * \param batchKey identifies the batch (unique per GPU)
     * \param batchSize members expected, >= 1 (the first join fixes it); 0 for an
     *        online batch whose size Close() gives later
     * \param prefillLength L, tokens, > 0 (the first join fixes it)
     * \param handoverTime this member's handover time tau_i
     * \param done called when the batch's prefill ends
     */
    void Join(uint64_t batchKey,
              uint32_t batchSize,
              uint64_t prefillLength,
              Time handoverTime,
              Callback<void> done);

    /**
     * \brief Give an online batch its final size; it runs once that many have joined.
     * \param batchKey the batch
     * \param batchSize members, >= 1
     */
    void Close(uint64_t batchKey, uint32_t batchSize);

    /**
     * \brief Run the batches on a GPU that serves many users: a batch that starts joins
     *        it as one priority prefill of L tokens per member (no decoding), and ends when
     *        that prefill's last chunk ran; GetModel() is then the GPU's
     *        EdgeLlmServingGpu::GetPlanningModel() and GetBusyUntil() the batches' starts.
     * \param gpu the node's ServingGpu
     */
    void SetServingGpu(Ptr<EdgeLlmServingGpu> gpu);

    /// \return the prefill time model of this GPU (with a ServingGpu: its planning model now)
    PrefillTimeModel GetModel() const;

    /// \return the batching period T_c
    Time GetBatchPeriod() const;

    /// \return when the GPU becomes idle (now or earlier if it is idle)
    Time GetBusyUntil() const;

    /**
     * \brief When a batch whose last member handed over at \p lastHandover would start if
     *        it were complete now: the first T_c boundary at or after that, now and the end
     *        of the GPU's work (ctHO Sec. II).
     * \param lastHandover the batch's last handover time
     * \return the start, >= now
     */
    Time GetStartFor(Time lastHandover) const;

  protected:
    void DoDispose() override;

  private:
    /// A batch waiting for members.
    struct Batch
    {
        uint32_t size{0};                 //!< Members expected
        uint64_t prefillLength{0};        //!< L, tokens
        Time lastHandover;                //!< max tau_i so far
        std::vector<Callback<void>> done; //!< Member callbacks
    };

    void Finish(uint64_t batchKey, std::vector<Callback<void>> done, uint64_t l, uint32_t n);
    /// With a ServingGpu: the batch joins it now (at its start).
    void StartOnServingGpu(uint64_t batchKey,
                           std::vector<Callback<void>> done,
                           uint64_t l,
                           uint32_t n);
    void MaybeStart(uint64_t batchKey);

    double m_a;                          //!< s/token
    double m_b;                          //!< s
    double m_c;                          //!< s/token^2
    Time m_batchPeriod;                  //!< T_c
    Time m_busyUntil;                    //!< End of the last scheduled batch
    Ptr<EdgeLlmServingGpu> m_serving;    //!< GPU of many users (null: p(L) alone)
    std::map<uint64_t, Batch> m_waiting; //!< Batches not yet complete

    TracedCallback<uint64_t, uint64_t, uint32_t> m_batchStartTrace; //!< BatchStart
    TracedCallback<uint64_t, uint64_t, uint32_t> m_batchEndTrace;   //!< BatchEnd
};

} // namespace ns3

#endif /* PREFILL_ENGINE_H */
