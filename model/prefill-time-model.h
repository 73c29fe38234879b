/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef PREFILL_TIME_MODEL_H
#define PREFILL_TIME_MODEL_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Batch prefill time on one GPU, `p(L) = c L^2 + a L + b` seconds (doc/edge-llm-design.rst,
 *        Prefill time).
 *
 * L is the (padded) batch length in tokens. p(0) = 0 means "no prefill".
 * ctHO Sec. IV-A uses the linear model (c = 0, a = 9.4267e-5 s/token,
 * b = 2.4e-3 s); the quadratic term models attention's super-linear cost
 * (DistServe, Vidur). A batch cannot take negative time: for L >= 1 the model
 * returns max(0, c L^2 + a L + b), so a fit with b < 0 (ImpactHO's Table II
 * quadratic) stays a valid, non-decreasing time. With a, c >= 0, p is
 * non-decreasing in L, which the ctHO planner relies on.
 */
class PrefillTimeModel
{
  public:
    /**
     * \param a linear coefficient, s/token, in [0, 1]
     * \param b constant, s, in [-3600, 3600] (may be negative, see class note)
     * \param c quadratic coefficient, s/token^2, in [0, 1e-3]
     * \throws std::invalid_argument naming the coefficient and its range
     */
    explicit PrefillTimeModel(double a = 9.4267e-5, double b = 2.4e-3, double c = 0.0);

    /**
     * \brief Check the coefficients against the constructor's ranges: the one check of
     *        them, which every config and program holding them calls with its own names.
     * \param a linear coefficient, s/token, in [0, 1]
     * \param b constant, s, in [-3600, 3600]
     * \param c quadratic coefficient, s/token^2, in [0, 1e-3]
     * \param aName how the caller names a (e.g. "prefillA")
     * \param bName how the caller names b
     * \param cName how the caller names c
     * \throws std::invalid_argument "<name> must be in <range>, got <value>"
     */
    static void CheckCoefficients(double a,
                                  double b,
                                  double c,
                                  const std::string& aName = "prefill slope a",
                                  const std::string& bName = "prefill constant b",
                                  const std::string& cName = "prefill quadratic coefficient c");

    /**
     * \param tokens batch length L in tokens
     * \return p(L) in seconds; 0 for L = 0
     */
    double Evaluate(uint64_t tokens) const;

    /// \return a, s/token
    double GetA() const;
    /// \return b, s
    double GetB() const;
    /// \return c, s/token^2
    double GetC() const;

    /**
     * \brief The time of \p members prefills of L tokens each, run in turn on a GPU whose
     *        iterations take tokens (a ServingGpu): the same constant b, the slope and the
     *        quadratic coefficient times \p members, each at most its range's top (1 s/token,
     *        1e-3 s/token^2; a batch that would be slower is planned at those).
     * \param members the batch's members, >= 1 (1: this model)
     * \return that model
     */
    PrefillTimeModel InTurn(std::size_t members) const;

    /**
     * \return ctHO Sec. IV-A default: a = 9.4267e-5, b = 2.4e-3, c = 0.
     */
    static PrefillTimeModel CtHoDefault();

    /**
     * \return Quadratic through ImpactHO Table II's Qwen3-8B re-prefill times
     *         (300 / 676 / 1566 ms at 4K / 8K / 16K tokens):
     *         c = 1.37e-9, a = 7.50e-5, b = -0.03 (doc/edge-llm-design.rst, Prefill time).
     */
    static PrefillTimeModel ImpactHoQwen3_8b();

  private:
    double m_a; //!< s/token
    double m_b; //!< s
    double m_c; //!< s/token^2
};

} // namespace ns3

#endif /* PREFILL_TIME_MODEL_H */
