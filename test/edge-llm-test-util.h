/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small helpers the test suites share.
 */
#ifndef EDGE_LLM_TEST_UTIL_H
#define EDGE_LLM_TEST_UTIL_H

#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace ns3
{
namespace edgellmtest
{

/// \return the message of the std::invalid_argument \p f throws ("" if it throws none)
inline std::string
ErrorOf(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch (const std::invalid_argument& e)
    {
        return e.what();
    }
    return "";
}

/**
 * \return a fresh empty directory for \p name under the system's temporary directory, one
 *         per process: suites of several ns-3 trees (or a standalone run beside them) run
 *         at once on one machine and must not remove each other's files
 */
inline std::string
FreshTempDir(const std::string& name)
{
    const auto dir = std::filesystem::temp_directory_path() /
                     ("edge-llm-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

} // namespace edgellmtest
} // namespace ns3

#endif /* EDGE_LLM_TEST_UTIL_H */
