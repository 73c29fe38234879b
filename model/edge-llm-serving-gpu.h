/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef EDGE_LLM_SERVING_GPU_H
#define EDGE_LLM_SERVING_GPU_H

#include "continuous-batching-gpu.h"
#include "prefill-time-model.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <memory>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief A BS's GPU that serves many users at packet level: ContinuousBatchingGpu run on
 *        the simulator's clock (doc/edge-llm-design.rst, "A GPU shared by many users").
 *
 * Iterations run back to back while there is work: each starts when the previous one ends
 * (or when work arrives at an idle GPU) and lasts GpuIterationModel's t_iter. A sequence's
 * events (PREFILL_DONE, TOKEN, FINISHED) go to the sink given at Add, at its iteration's
 * end, after the whole iteration's events are known (a sink may Add, Release or Remove).
 *
 * With an EdgeLlmNode's ServingGpu set, the node's prompts, decoding and handover restore
 * prefills all run here (the papers' single-session mode, DecodeRate and PrefillEngine's
 * own p(L), is the default: no ServingGpu).
 */
class EdgeLlmServingGpu : public Object
{
  public:
    /**
     * \brief Get the type ID.
     * \return the object TypeId
     */
    static TypeId GetTypeId();

    EdgeLlmServingGpu();
    ~EdgeLlmServingGpu() override;

    /// A sequence's events: the event (its id is the handle Add returned)
    typedef Callback<void, const GpuEvent&> EventSink;

    /**
     * \brief TracedCallback signature for an iteration.
     * \param [in] duration t_iter
     * \param [in] prefillTokens P
     * \param [in] decodeSequences B
     * \param [in] kvTokensRead K
     * \param [in] running sequences admitted
     * \param [in] waiting sequences waiting for admission
     */
    typedef void (*IterationTracedCallback)(Time duration,
                                            uint64_t prefillTokens,
                                            uint64_t decodeSequences,
                                            uint64_t kvTokensRead,
                                            uint32_t running,
                                            uint32_t waiting);

    /**
     * \brief Take the constants of a GpuIterationModel preset (before the first Add).
     * \param name one of GpuIterationModel::PresetNames()
     * \throws std::invalid_argument naming the valid presets
     */
    void SetPreset(const std::string& name);

    /**
     * \brief Set the KV bytes per token (the node's LlmModelProfile), before the first Add.
     * \param bytesPerToken >= 1
     */
    void SetBytesPerToken(uint64_t bytesPerToken);

    /**
     * \brief Queue a sequence (ContinuousBatchingGpu::Add).
     * \param spec its work
     * \param sink where its events go
     * \return its handle (>= 1); 0 when its context can never fit the KV memory
     */
    uint64_t Add(const GpuSequenceSpec& spec, EventSink sink);

    /**
     * \brief Let a held sequence decode.
     * \param handle a sequence on this GPU
     */
    void Release(uint64_t handle);

    /**
     * \brief Take a sequence off the GPU; its sink gets nothing more.
     * \param handle a sequence on this GPU (0 or one that finished: nothing happens)
     */
    void Remove(uint64_t handle);

    /// \param handle a handle \return whether that sequence is on this GPU
    bool Has(uint64_t handle) const;

    /**
     * \brief Keep a conversation's KV cache between its turns (ContinuousBatchingGpu::Park:
     *        least recently parked evicted first when the memory needs room); a cache
     *        already held for it is replaced.
     * \param conversation the conversation
     * \param tokens its context, >= 1
     * \return false (nothing kept, an eviction counted) when it does not fit the KV memory
     */
    bool Park(uint64_t conversation, uint64_t tokens);

    /**
     * \brief Take a conversation's idle cache (ContinuousBatchingGpu::Unpark).
     * \param conversation the conversation
     * \return its tokens; 0 when none is held (never parked, or evicted)
     */
    uint64_t Unpark(uint64_t conversation);

    /**
     * \brief p(L) of a priority prefill of L tokens on this GPU now
     *        (ContinuousBatchingGpu::ExpectedPrefillModel), what the handover planners read.
     * \return the model
     */
    PrefillTimeModel GetPlanningModel() const;

    /// \return the GPU (its state, for statistics)
    const ContinuousBatchingGpu& GetGpu() const;

    /// \return the iteration model of the attributes
    GpuIterationModel GetModel() const;

  protected:
    void DoDispose() override;

  private:
    /// The GPU, built at the first use from the attributes.
    ContinuousBatchingGpu& Gpu();
    /// Set the attributes' members to \p model's fields (GetModel() reads them back).
    void Take(const GpuIterationModel& model);
    /// Start an iteration if idle and there is work.
    void Kick();
    /// The iteration under way ends.
    void EndIteration();

    double m_c0;                                  //!< C0, s
    double m_cPrefill;                            //!< CPrefill, s/token
    double m_cDecode;                             //!< CDecode, s
    double m_cKv;                                 //!< CKv, s/token
    uint64_t m_tokenBudget;                       //!< TokenBudget
    uint32_t m_maxRunning;                        //!< MaxRunning
    uint64_t m_kvMemory;                          //!< KvMemory, bytes
    uint64_t m_bytesPerToken{1};                  //!< KV bytes per token
    std::unique_ptr<ContinuousBatchingGpu> m_gpu; //!< Built at the first use
    std::map<uint64_t, EventSink> m_sinks;        //!< Per handle
    uint64_t m_nextHandle{1};                     //!< The next Add's handle
    bool m_dispatching{false};                    //!< Sinks run: Kick after them
    EventId m_iterationEnd;                       //!< The iteration under way's end
    TracedCallback<Time, uint64_t, uint64_t, uint64_t, uint32_t, uint32_t>
        m_iterationTrace; //!< Iteration
};

} // namespace ns3

#endif /* EDGE_LLM_SERVING_GPU_H */
