/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * What the GoogleTest files share.
 */
#ifndef EDGE_LLM_GTEST_UTIL_H
#define EDGE_LLM_GTEST_UTIL_H

#include <stdexcept>
#include <string>

namespace edgellmtest
{

/**
 * \brief The message of the exception of type \p E that \p f throws.
 * \tparam E the exception type caught (std::invalid_argument unless given)
 * \tparam F \deduced a callable without arguments
 * \param f what to call
 * \return the message; "" if \p f throws none
 */
template <typename E = std::invalid_argument, typename F>
std::string
ErrorOf(F f)
{
    try
    {
        f();
    }
    catch (const E& e)
    {
        return e.what();
    }
    return "";
}

} // namespace edgellmtest

#endif /* EDGE_LLM_GTEST_UTIL_H */
