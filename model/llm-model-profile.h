/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef LLM_MODEL_PROFILE_H
#define LLM_MODEL_PROFILE_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief KV-cache geometry of one LLM (pure math layer: no simulator state).
 *
 * Per token the KV cache holds `s_KV = 2 * N_layers * N_kv_heads * d_head * q` bits
 * (2 = key and value, q = bits per element): ctHO Sec. IV-A, ImpactHO Sec. II.
 * One *entry* is one (layer, kv-head, token) pair: `2 * d_head * q` bits.
 *
 * Presets come from each model's published config.json (num_hidden_layers,
 * num_key_value_heads, head_dim); see doc/edge-llm-design.rst, Model Description, KV cache size.
 * Their context windows come from the model cards (Hugging Face, read 2026-12):
 * - qwen2.5-7b-instruct: 32,768 tokens native (config.json max_position_embeddings), 131,072
 *   with YaRN rope scaling (https://huggingface.co/Qwen/Qwen2.5-7B-Instruct, "Context Length:
 *   Full 131,072 tokens");
 * - qwen3-8b, qwen3-14b: 32,768 native, 131,072 with YaRN
 *   (https://huggingface.co/Qwen/Qwen3-8B, https://huggingface.co/Qwen/Qwen3-14B);
 * - llama-3.1-8b-instruct: 131,072 (128K; config.json max_position_embeddings, its llama3
 *   rope scaling built in) (https://huggingface.co/meta-llama/Llama-3.1-8B-Instruct).
 */
struct LlmModelProfile
{
    std::string name;       //!< Preset name, e.g. "qwen2.5-7b-instruct"
    uint32_t numLayers{0};  //!< N_layers, >= 1
    uint32_t numKvHeads{0}; //!< N_kv_heads (grouped-query KV heads), >= 1
    uint32_t headDim{0};    //!< d_head, elements per head, >= 1
    uint32_t kvBits{16};    //!< q, bits per KV element: 16 (BF16), 8 or 4 (quantized)
    /// The longest context the model card supports, tokens (with the rope scaling it
    /// documents, e.g. Qwen's YaRN); 0: unknown (a hand-made profile), then not checked
    uint64_t contextWindow{0};
    /// The context the model was trained for without rope scaling, tokens (<=
    /// contextWindow; 0: unknown)
    uint64_t nativeContextWindow{0};

    /**
     * \return s_KV in bits per token, `2 * N_layers * N_kv_heads * d_head * q`.
     */
    uint64_t BitsPerToken() const;

    /**
     * \return KV bytes per token, s_KV / 8 (exact for q in {4, 8, 16}).
     */
    uint64_t BytesPerToken() const;

    /**
     * \return Bits of one (layer, kv-head, token) entry, `2 * d_head * q`.
     */
    uint64_t BitsPerEntry() const;

    /**
     * \return KV bytes of one entry, `d_head * q / 4` (exact for q in {4, 8, 16}): the unit
     *         of an importance-ordered transfer (ImpactHO, and entries sent ahead)
     */
    uint64_t BytesPerEntry() const;

    /**
     * \return Entries per token, `N_layers * N_kv_heads`.
     */
    uint64_t EntriesPerToken() const;

    /**
     * \brief Check every field.
     * \throws std::invalid_argument naming the field and its valid range.
     */
    void Validate() const;

    /**
     * \brief Refuse a context longer than the model's window (contextWindow), unless the
     *        caller allows it (and then says so on its output).
     * \param field the field or option holding the context, as its user knows it
     *        ("contextMax", "--promptMax", "ues row 3 context_tokens")
     * \param tokens the context, tokens
     * \param allowBeyond accept any length (allowBeyondContextWindow)
     * \throws std::invalid_argument "<field> = <tokens> tokens exceeds the context window of
     *         <name> (<contextWindow> tokens); set allowBeyondContextWindow to simulate it
     *         anyway" when tokens > contextWindow > 0 and not \p allowBeyond
     */
    void CheckContext(const std::string& field, uint64_t tokens, bool allowBeyond) const;

    /**
     * \brief The line a program prints when it allows contexts beyond the window.
     * \param tokens the longest context it runs, tokens
     * \return "" when \p tokens fits (or the window is unknown), else "note: contexts up to
     *         <tokens> tokens exceed the context window of <name> (<contextWindow> tokens):
     *         allowed by allowBeyondContextWindow"
     */
    std::string BeyondContextNote(uint64_t tokens) const;

    /**
     * \brief A preset by name (case-sensitive).
     * \param name one of PresetNames()
     * \param kvBits q in bits: 16, 8 or 4
     * \throws std::invalid_argument for an unknown name (the message lists the
     *         presets) or a q outside {16, 8, 4}
     */
    static LlmModelProfile FromPreset(const std::string& name, uint32_t kvBits = 16);

    /**
     * \return The preset names: qwen2.5-7b-instruct, qwen3-8b, qwen3-14b,
     *         llama-3.1-8b-instruct.
     */
    static std::vector<std::string> PresetNames();

    /// \return the valid values of kvBits, "{16, 8, 4}" (Validate's message and the
    ///         programs' option parsing quote it)
    static std::string KvBitsRange();
};

} // namespace ns3

#endif /* LLM_MODEL_PROFILE_H */
