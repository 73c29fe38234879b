/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * The small packet-level study and the checks every run of it passes, shared by the
 * backhaul-study suite (LTE) and the NR suite (the same study over 5G-LENA).
 */
#ifndef EDGE_LLM_STUDY_CHECKS_H
#define EDGE_LLM_STUDY_CHECKS_H

#include "../examples/studies/multi-cell-scenario.h"

#include "ns3/test.h"

#include <cmath>
#include <fstream>
#include <string>

namespace ns3
{
namespace edgellmtest
{

/**
 * \brief A file of the repository, wherever the test runner runs.
 * \param path the file's path from the repository's root, e.g. "test/data/x.inet"
 * \return a path to it that opens from here (or \p path if none does)
 */
inline std::string
RepoFile(const std::string& path)
{
    const std::string here(__FILE__);
    const std::string dir = here.substr(0, here.find_last_of('/') + 1);
    // __FILE__ is absolute (CMake) or relative to the build folder (waf, ns-3.35); the test
    // runner runs in the build folder (standalone) or the ns-3 top folder (test.py).
    for (const std::string& candidate :
         {dir + "../" + path, path, "../" + path, "contrib/edge-llm/" + path})
    {
        if (std::ifstream(candidate))
        {
            return candidate;
        }
    }
    return path;
}

/**
 * \brief The small packet-level study: 7 hex sites x 2 UEs (14 UEs), a star backhaul of
 *        1 Gbit/s links, prompts of 100 to 200 tokens, 50 tokens after the handover.
 * \param load cross-traffic load, [0, 0.9]
 * \param ran "lte" or "nr"
 * \return the config
 */
inline MultiCellConfig
SmallStudy(double load, const std::string& ran = "lte")
{
    MultiCellConfig cfg;
    cfg.ran = ran;
    cfg.layout = "hex";
    cfg.numSites = 7;
    cfg.uesPerSite = 2;
    cfg.backhaul = "star";
    cfg.backhaulGbps = 1;
    cfg.promptMin = 100;
    cfg.promptMax = 200;
    cfg.tokensAfterHandover = 50;
    cfg.tailTime = Seconds(5);
    cfg.crossTrafficLoad = load;
    return cfg;
}

/**
 * \brief A run of the small study (SmallStudy: 14 UEs): the checks every scheme's run
 *        passes (every session restored, none lost, KV bytes conserved in all, per
 *        session and per backhaul link).
 */
class SmallStudyTestCase : public TestCase
{
  protected:
    /// \param name the case's name
    explicit SmallStudyTestCase(const std::string& name)
        : TestCase(name)
    {
    }

    /**
     * \brief Check that \p r restored all 14 sessions and conserved its KV bytes: in all
     *        (application bytes sent = received), per session (each UE's bytes received =
     *        the n_tx x s_KV its source planned to send, and they add up to the
     *        application bytes; a transfer the target replanned keeps its whole tokens,
     *        (n_tx - re-prefilled) x s_KV, and the application bytes lie between the kept
     *        ones and those plus the re-prefilled tokens' bytes; ImpactHO's family: at most its
     * cache, the share it reports is bytes received / cache, and the sessions' bytes stay below the
     * application bytes, which add each entry's coordinates) and on every backhaul link direction
     * (offered = dropped + received). \param r the run's result
     */
    void CheckRestoredAndConserved(const MultiCellResult& r)
    {
        NS_TEST_EXPECT_MSG_EQ(r.ues.size(), 14, "UEs");
        NS_TEST_EXPECT_MSG_EQ(r.restoredSessions, 14, "sessions restored");
        NS_TEST_EXPECT_MSG_EQ(r.lostSessions, 0, "sessions lost");
        NS_TEST_EXPECT_MSG_EQ(r.complete, true, "complete");
        NS_TEST_EXPECT_MSG_EQ(r.kvBytesSent, r.kvBytesReceived, "application bytes");
        uint64_t received = 0;
        uint64_t stopped = 0; // bytes of the tokens replanned transfers left to the target's GPU
        for (const auto& ue : r.ues)
        {
            received += ue.kvBytesReceived;
            if (ue.replanned)
            {
                // Loss-aware replanning: the whole tokens received are kept, the missing
                // ones re-prefilled: kept + re-prefilled = n_tx.
                NS_TEST_EXPECT_MSG_LT_OR_EQ(ue.reprefillTokens,
                                            ue.transferTokens,
                                            "UE " << ue.ueId << ": re-prefills part of n_tx");
                const uint64_t bytesPerToken = ue.kvBytesExpected / ue.transferTokens;
                NS_TEST_EXPECT_MSG_EQ(ue.kvBytesReceived,
                                      (ue.transferTokens - ue.reprefillTokens) * bytesPerToken,
                                      "UE " << ue.ueId << " kept (n_tx - re-prefilled) tokens");
                stopped += ue.reprefillTokens * bytesPerToken;
            }
            else if (std::isnan(ue.receivedFraction))
            {
                NS_TEST_EXPECT_MSG_EQ(ue.kvBytesReceived,
                                      ue.kvBytesExpected,
                                      "UE " << ue.ueId << " got n_tx x s_KV bytes");
            }
            else
            {
                NS_TEST_EXPECT_MSG_LT_OR_EQ(ue.kvBytesReceived,
                                            ue.kvBytesExpected,
                                            "UE " << ue.ueId << ": at most its cache");
                NS_TEST_EXPECT_MSG_EQ_TOL(ue.receivedFraction,
                                          static_cast<double>(ue.kvBytesReceived) /
                                              static_cast<double>(ue.kvBytesExpected),
                                          1e-12,
                                          "UE " << ue.ueId << ": share = bytes received / cache");
            }
        }
        if (r.accuracyUes == 0 && stopped == 0)
        {
            NS_TEST_EXPECT_MSG_EQ(received, r.kvBytesReceived, "per-session bytes add up");
        }
        else if (r.accuracyUes == 0)
        {
            // The bytes of a replanned transfer that arrived beyond its whole tokens (or
            // after the stop) reach the connection but no session.
            NS_TEST_EXPECT_MSG_LT_OR_EQ(received, r.kvBytesReceived, "kept <= delivered");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(r.kvBytesReceived,
                                        received + stopped,
                                        "delivered <= kept + what the replans stopped");
        }
        else
        {
            // ImpactHO's importance-ordered segments also carry each entry's coordinates
            // (the application bytes count them; a session's KV bytes do not).
            NS_TEST_EXPECT_MSG_LT(received, r.kvBytesReceived, "KV bytes within the wire's");
        }
        for (const auto& link : r.links)
        {
            NS_TEST_EXPECT_MSG_EQ(link.offeredBytes,
                                  link.droppedBytes + link.receivedBytes,
                                  "link " << link.fromCellId << " -> " << link.toCellId
                                          << ": offered = dropped + received");
        }
    }
};

} // namespace edgellmtest
} // namespace ns3

#endif /* EDGE_LLM_STUDY_CHECKS_H */
