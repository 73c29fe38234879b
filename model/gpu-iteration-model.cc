/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "gpu-iteration-model.h"

#include "edge-llm-limits.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace ns3
{

namespace
{

/// Throws "<field> must be in [lo, hi], got <v>" unless lo <= v <= hi.
void
CheckRange(const char* field, uint64_t v, uint64_t lo, uint64_t hi)
{
    if (v < lo || v > hi)
    {
        throw std::invalid_argument(std::string(field) + " must be in [" + std::to_string(lo) +
                                    ", " + std::to_string(hi) + "], got " + std::to_string(v));
    }
}

/*
 * Constants of the presets (doc/edge-llm-design.rst, "A GPU shared by many users").
 *
 * Both presets run on one NVIDIA A100 80GB SXM: HBM2e bandwidth 2,039 GB/s = 2.039e12 B/s and
 * 80 GB of memory, taken as 80e9 bytes (NVIDIA A100 Tensor Core GPU datasheet). vLLM reserves
 * gpu_memory_utilization = 0.9 of it (vLLM EngineArgs default), so the KV memory is
 * 0.9 x 80e9 - the weights (2 bytes per parameter in BF16).
 */
constexpr double A100_HBM_BYTES_PER_S = 2.039e12;    //!< A100 80GB SXM datasheet
constexpr double VLLM_MEMORY_FOR_MODEL = 0.9 * 80e9; //!< gpu_memory_utilization x 80 GB

/*
 * vLLM's defaults on an A100 (vllm/engine/arg_utils.py, EngineArgs, V1 engine, where chunked
 * prefill is on by default): `vllm serve` (UsageContext.OPENAI_API_SERVER) sets
 * max_num_batched_tokens = 2048 and max_num_seqs = 256 on GPUs below 70 GiB and on every
 * A100 (the code excludes "a100" from the large-GPU defaults 8192 / 1024 because a larger
 * budget lowered the A100's throughput, vLLM PR #17885). Sarathi-Serve (Agrawal et al.,
 * OSDI 2024) evaluates token budgets 512 and 2048. (vLLM's older V0 engine defaulted to 512
 * with chunked prefill, vLLM PR #4580.)
 */
constexpr uint64_t VLLM_A100_TOKEN_BUDGET = 2048; //!< max_num_batched_tokens
constexpr uint32_t VLLM_MAX_RUNNING = 256;        //!< max_num_seqs

/// The "ctho-a100" preset: the field defaults of GpuIterationModel.
GpuIterationModel
CthoA100()
{
    GpuIterationModel m;
    // ctHO Sec. IV-A's prefill model p(L) = a L + b on an A100: b = 2.4e-3 s, a = 9.4267e-5
    // s/token; with B = K = 0 the iteration time is p(L).
    m.c0 = 2.4e-3;
    m.cPrefill = 9.4267e-5;
    // A decode token runs through the same linear layers as a prefill token (about 2 x
    // parameters FLOPs): the same cost per token.
    m.cDecode = 9.4267e-5;
    // Qwen2.5-7B-Instruct's KV per token: 2 (K, V) x 28 layers x 4 KV heads x 128 x 2 bytes
    // = 57344 B (ctHO's s_KV = 458752 bit), read from HBM at 2.039e12 B/s: 2.8124e-8 s/token.
    m.cKv = 2.8124e-8;
    m.tokenBudget = VLLM_A100_TOKEN_BUDGET;
    m.maxRunning = VLLM_MAX_RUNNING;
    // 0.9 x 80e9 - 15.23e9 (Qwen2.5-7B: 7.615e9 parameters, the model card's 7.61B, at 2
    // bytes) = 56.77e9 bytes (rounded to 10 MB).
    m.kvMemoryBytes = 56770000000ULL;
    return m;
}

/// The "impactho-qwen3-8b-a100" preset.
GpuIterationModel
ImpactHoQwen3A100()
{
    GpuIterationModel m;
    // Qwen3-8B's KV per token: 2 x 36 layers x 8 KV heads x 128 x 2 bytes = 147456 B, read at
    // 2.039e12 B/s: 7.2318e-8 s/token.
    m.cKv = 7.2318e-8;
    m.tokenBudget = VLLM_A100_TOKEN_BUDGET;
    m.maxRunning = VLLM_MAX_RUNNING;
    // c0 and cPrefill: least squares of a one-sequence chunked prefill of L = 4096, 8192,
    // 16384 tokens at the 2048-token budget (n = L / 2048 chunks, chunk i reading the prefix
    // i x 2048: t(L) = n c0 + cPrefill L + cKv 2048 n (n - 1) / 2) against ImpactHO Table II's
    // re-prefill times 300 / 676 / 1566 ms. As n = L / 2048 exactly, t(L) depends on c0 and
    // cPrefill only through s = cPrefill + c0 / 2048: the fit gives s = 9.1814e-5 s/token
    // (residuals +76.2 / +77.0 / -57.6 ms, the same for every split). The split takes c0 =
    // the time to stream the weights from HBM once per iteration, 2 x 8.19e9 B / 2.039e12
    // B/s = 8.0333e-3 s (a forward pass's memory floor; >= 0), so cPrefill = s - c0 / 2048.
    m.c0 = 8.0333e-3;
    m.cPrefill = 8.7892e-5;
    // As for ctho-a100: a decode token costs what a prefill token does.
    m.cDecode = 8.7892e-5;
    // 0.9 x 80e9 - 16.38e9 (Qwen3-8B: 8.19e9 parameters at 2 bytes) = 55.62e9 bytes.
    m.kvMemoryBytes = 55620000000ULL;
    m.llm = "qwen3-8b";
    return m;
}

} // namespace

double
GpuIterationModel::IterationTime(uint64_t prefillTokens,
                                 uint64_t decodeSequences,
                                 uint64_t kvTokensRead) const
{
    if (prefillTokens == 0 && decodeSequences == 0)
    {
        return 0.0;
    }
    return c0 + cPrefill * static_cast<double>(prefillTokens) +
           cDecode * static_cast<double>(decodeSequences) + cKv * static_cast<double>(kvTokensRead);
}

void
GpuIterationModel::Validate() const
{
    edgellm::CheckRange("c0", c0, 0.0, 10.0);
    edgellm::CheckRange("cPrefill", cPrefill, 0.0, 1.0);
    edgellm::CheckRange("cDecode", cDecode, 0.0, 1.0);
    edgellm::CheckRange("cKv", cKv, 0.0, 1e-3);
    CheckRange("tokenBudget", tokenBudget, 1, MAX_TOKEN_BUDGET);
    CheckRange("maxRunning", maxRunning, 1, MAX_RUNNING);
    CheckRange("kvMemoryBytes", kvMemoryBytes, 1, MAX_KV_MEMORY);
}

void
GpuIterationModel::CheckPlanning(uint64_t bytesPerToken) const
{
    if (bytesPerToken < 1)
    {
        throw std::invalid_argument("bytesPerToken must be >= 1, got 0");
    }
    const double tokens = static_cast<double>(kvMemoryBytes) / static_cast<double>(bytesPerToken);
    const double fixed = c0 + cDecode * maxRunning + cKv * tokens;
    if (!(cPrefill + fixed <= 1))
    {
        std::ostringstream msg;
        msg << "gpu: cPrefill + c0 + cDecode x maxRunning + cKv x KV memory in tokens must be at "
               "most 1 s (the handover planner's largest prefill slope), got "
            << cPrefill + fixed << " s";
        throw std::invalid_argument(msg.str());
    }
}

std::vector<std::string>
GpuIterationModel::PresetNames()
{
    return {"ctho-a100", "impactho-qwen3-8b-a100"};
}

GpuIterationModel
GpuIterationModel::FromPreset(const std::string& name)
{
    if (name == "ctho-a100")
    {
        return CthoA100();
    }
    if (name == "impactho-qwen3-8b-a100")
    {
        return ImpactHoQwen3A100();
    }
    std::string names;
    for (const auto& n : PresetNames())
    {
        names += (names.empty() ? "" : ", ") + n;
    }
    throw std::invalid_argument("preset must be one of " + names + ", got '" + name + "'");
}

} // namespace ns3
