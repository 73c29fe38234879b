/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#include "llm-model-profile.h"

#include <iterator>
#include <sstream>
#include <stdexcept>

namespace ns3
{

namespace
{

struct Preset
{
    const char* name;
    uint32_t layers;
    uint32_t kvHeads;
    uint32_t headDim;
    uint64_t contextWindow;       // with the card's rope scaling, tokens
    uint64_t nativeContextWindow; // without it, tokens
};

// Published config.json of each model (num_hidden_layers, num_key_value_heads, head_dim)
// and its model card's context length (LlmModelProfile's class comment cites them).
const Preset g_presets[] = {
    {"qwen2.5-7b-instruct", 28, 4, 128, 131072, 32768},
    {"qwen3-8b", 36, 8, 128, 131072, 32768},
    {"qwen3-14b", 40, 8, 128, 131072, 32768},
    {"llama-3.1-8b-instruct", 32, 8, 128, 131072, 131072},
};

} // namespace

uint64_t
LlmModelProfile::BitsPerToken() const
{
    return 2ULL * numLayers * numKvHeads * headDim * kvBits;
}

uint64_t
LlmModelProfile::BytesPerToken() const
{
    return BitsPerToken() / 8;
}

uint64_t
LlmModelProfile::BitsPerEntry() const
{
    return 2ULL * headDim * kvBits;
}

uint64_t
LlmModelProfile::BytesPerEntry() const
{
    return BitsPerEntry() / 8;
}

uint64_t
LlmModelProfile::EntriesPerToken() const
{
    return static_cast<uint64_t>(numLayers) * numKvHeads;
}

void
LlmModelProfile::Validate() const
{
    auto require = [](bool ok, const std::string& what) {
        if (!ok)
        {
            throw std::invalid_argument(what);
        }
    };
    require(numLayers >= 1 && numLayers <= 1024, "numLayers must be in [1, 1024]");
    require(numKvHeads >= 1 && numKvHeads <= 1024, "numKvHeads must be in [1, 1024]");
    require(headDim >= 1 && headDim <= 65536, "headDim must be in [1, 65536]");
    require(kvBits == 16 || kvBits == 8 || kvBits == 4,
            "kvBits must be in " + KvBitsRange() + ", got " + std::to_string(kvBits));
}

void
LlmModelProfile::CheckContext(const std::string& field, uint64_t tokens, bool allowBeyond) const
{
    if (!allowBeyond && contextWindow > 0 && tokens > contextWindow)
    {
        throw std::invalid_argument(field + " = " + std::to_string(tokens) +
                                    " tokens exceeds the context window of " + name + " (" +
                                    std::to_string(contextWindow) +
                                    " tokens); set allowBeyondContextWindow to simulate it anyway");
    }
}

std::string
LlmModelProfile::BeyondContextNote(uint64_t tokens) const
{
    if (contextWindow == 0 || tokens <= contextWindow)
    {
        return "";
    }
    return "note: contexts up to " + std::to_string(tokens) +
           " tokens exceed the context window of " + name + " (" + std::to_string(contextWindow) +
           " tokens): allowed by allowBeyondContextWindow";
}

std::string
LlmModelProfile::KvBitsRange()
{
    return "{16, 8, 4}";
}

LlmModelProfile
LlmModelProfile::FromPreset(const std::string& name, uint32_t kvBits)
{
    for (const auto& p : g_presets)
    {
        if (name == p.name)
        {
            LlmModelProfile profile;
            profile.name = p.name;
            profile.numLayers = p.layers;
            profile.numKvHeads = p.kvHeads;
            profile.headDim = p.headDim;
            profile.kvBits = kvBits;
            profile.contextWindow = p.contextWindow;
            profile.nativeContextWindow = p.nativeContextWindow;
            profile.Validate();
            return profile;
        }
    }
    std::ostringstream oss;
    oss << "model must be one of";
    for (std::size_t i = 0; i < std::size(g_presets); ++i)
    {
        oss << (i == 0 ? " " : ", ") << g_presets[i].name;
    }
    oss << ", got '" << name << "'";
    throw std::invalid_argument(oss.str());
}

std::vector<std::string>
LlmModelProfile::PresetNames()
{
    std::vector<std::string> names;
    for (const auto& p : g_presets)
    {
        names.emplace_back(p.name);
    }
    return names;
}

} // namespace ns3
