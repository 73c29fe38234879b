/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Small helpers the test suites share.
 */
#ifndef EDGE_LLM_TEST_UTIL_H
#define EDGE_LLM_TEST_UTIL_H

#include <functional>
#include <stdexcept>
#include <string>

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

} // namespace edgellmtest
} // namespace ns3

#endif /* EDGE_LLM_TEST_UTIL_H */
