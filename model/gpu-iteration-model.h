/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef GPU_ITERATION_MODEL_H
#define GPU_ITERATION_MODEL_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief The time of one continuous-batching iteration of a GPU that serves many users
 *        (doc/edge-llm-design.rst, "A GPU shared by many users"):
 *
 *   t_iter = c0 + c_p P + c_d B + c_kv K   seconds
 *
 * P: prefill tokens in the iteration (chunks of waiting prompts and handover restores);
 * B: sequences that decode one token; K: KV tokens the iteration reads (every decoding
 * sequence's context, and every prefill chunk's prefix already in memory). With B = 0
 * and K = 0 it is the papers' p(L) = b + a L (c0 = b, c_p = a). An iteration with no work
 * takes no time (t_iter(0, 0, 0) = 0).
 *
 * Also the GPU's limits: the per-iteration token budget (chunked prefill, as Sarathi-Serve's
 * and vLLM's max_num_batched_tokens; a decode step costs one token of it), the most
 * sequences running at once, and the KV memory in bytes.
 *
 * Pure C++: no simulator state.
 */
class GpuIterationModel
{
  public:
    static constexpr uint64_t MAX_TOKEN_BUDGET = 1000000; //!< Largest token budget
    static constexpr uint32_t MAX_RUNNING = 100000;       //!< Largest maxRunning
    static constexpr uint64_t MAX_KV_MEMORY = 1ULL << 50; //!< Largest KV memory, bytes

    double c0{2.4e-3};                      //!< Per iteration, s, [0, 10]
    double cPrefill{9.4267e-5};             //!< Per prefill token, s/token, [0, 1]
    double cDecode{9.4267e-5};              //!< Per decoding sequence, s, [0, 1]
    double cKv{2.8124e-8};                  //!< Per KV token read, s/token, [0, 1e-3]
    uint64_t tokenBudget{2048};             //!< Tokens per iteration, [1, MAX_TOKEN_BUDGET]
    uint32_t maxRunning{256};               //!< Sequences admitted at once, [1, MAX_RUNNING]
    uint64_t kvMemoryBytes{56770000000ULL}; //!< KV memory, bytes, [1, MAX_KV_MEMORY]
    /// The LlmModelProfile preset whose KV size (cKv, kvMemoryBytes) the constants assume;
    /// a serving engine sizes KV caches with it (FluidServingConfig::model must match)
    std::string llm{"qwen2.5-7b-instruct"};

    /**
     * \param prefillTokens P
     * \param decodeSequences B
     * \param kvTokensRead K
     * \return t_iter, s (0 when P = B = 0)
     */
    double IterationTime(uint64_t prefillTokens,
                         uint64_t decodeSequences,
                         uint64_t kvTokensRead) const;

    /**
     * \brief Check every field.
     * \throws std::invalid_argument "<field> must be in <range>, got <value>"
     */
    void Validate() const;

    /**
     * \brief Check that a handover planner can read this GPU at its busiest
     *        (ContinuousBatchingGpu::ExpectedPrefillModel): with every admissible sequence
     *        decoding and the whole KV memory read, cPrefill + c0 + cDecode maxRunning +
     *        cKv (kvMemoryBytes / bytesPerToken) <= 1 s (PrefillTimeModel's largest slope).
     * \param bytesPerToken KV bytes per token, >= 1
     * \throws std::invalid_argument stating both sides
     */
    void CheckPlanning(uint64_t bytesPerToken) const;

    /**
     * \brief A preset: constants for a model on a GPU, each from a cited measurement or
     *        datasheet (doc/edge-llm-design.rst lists them): "ctho-a100" (ctHO's Qwen2.5-7B
     *        prefill model on an A100 80GB; the field defaults) and "impactho-qwen3-8b-a100"
     *        (Qwen3-8B on the same GPU, fitted to ImpactHO Table II's re-prefill times).
     * \param name one of PresetNames()
     * \return the preset
     * \throws std::invalid_argument naming the valid presets
     */
    static GpuIterationModel FromPreset(const std::string& name);

    /// \return the preset names, the default ("ctho-a100") first
    static std::vector<std::string> PresetNames();
};

} // namespace ns3

#endif /* GPU_ITERATION_MODEL_H */
