/*
 * SPDX-License-Identifier: GPL-2.0-only
 */
#ifndef ACCURACY_UTILITY_H
#define ACCURACY_UTILITY_H

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * \ingroup edge-llm
 * \brief Accuracy of an LLM as a function of the fraction y in [0, 1] of its
 *        importance-ordered KV cache received: a sigmoid with upper asymptote M,
 *        sharpness k and inflection tau (ImpactHO Sec. III-D and IV, Eq. 6;
 *        doc/edge-llm-design.rst, ImpactHO accuracy utility). With `u = k (y - tau)`:
 *
 * | family    | A(y)                             | A'(y)                          |
 * |-----------|----------------------------------|--------------------------------|
 * | algebraic | M/2 (1 + u / sqrt(1 + u^2))      | M k / (2 (1 + u^2)^{3/2})      |
 * | logistic  | M / (1 + e^{-u})                 | M k s (1 - s), s = A/M         |
 * | erf       | M/2 (1 + erf(u))                 | M k e^{-u^2} / sqrt(pi)        |
 * | arctan    | M (1/2 + atan(u) / pi)           | M k / (pi (1 + u^2))           |
 *
 * The paper fits the algebraic family (tau in [0.064, 0.067] under Fast KVzip order).
 * A is increasing; it is concave on [tau, 1], where InverseDerivative() is defined.
 * Pure math: no simulator state.
 */
struct AccuracyUtility
{
    /// The sigmoid family.
    enum Family
    {
        ALGEBRAIC, //!< ImpactHO Eq. (6)
        LOGISTIC,  //!< Logistic
        ERF,       //!< Gauss error function
        ARCTAN,    //!< Arctangent
    };

    Family family{ALGEBRAIC}; //!< Curve family
    double asymptote{0.94};   //!< M, full-cache accuracy, in (0, 1]
    double sharpness{45};     //!< k, > 0 (per unit fraction)
    double inflection{0.065}; //!< tau, the concavity anchor, in (0, 1)

    /// \return A(y), accuracy in [0, M], for y in [0, 1]
    double Value(double y) const;

    /// \return A'(y), accuracy per unit fraction
    double Derivative(double y) const;

    /**
     * \brief The inverse of A' on the concave branch (the interior branch of ImpactHO Eq. (9)
     *        for this family; doc/edge-llm-design.rst, ImpactHO accuracy utility).
     * \param slope p > 0
     * \return the y >= tau with A'(y) = p; tau if p >= A'(tau) (the steepest slope);
     *         +infinity if p <= 0 (any y is too steep)
     */
    double InverseDerivative(double slope) const;

    /**
     * \brief Check every parameter.
     * \throws std::invalid_argument naming the parameter and its valid range
     */
    void Validate() const;

    /// \return "algebraic", "logistic", "erf" or "arctan"
    static std::string FamilyName(Family family);

    /**
     * \param name "algebraic", "logistic", "erf" or "arctan"
     * \throws std::invalid_argument for another name (listing the valid ones)
     */
    static Family ParseFamily(const std::string& name);

    /**
     * \brief Which fit of the importance-order presets (doc/edge-llm-design.rst, ImpactHO accuracy
     *        utility, Calibrations).
     */
    enum Calibration
    {
        HEADLINE, //!< k = 45, tau = 0.065 at every length: fits the 93.7 % headline (default)
        JOINT,    //!< (M, k, tau) per length, fitted jointly to Table II and the headline
    };

    /**
     * \brief Importance-order parameters at the three context lengths the paper measures,
     *        4K, 8K and 16K tokens (index 0, 1, 2); Preset() interpolates them linearly in
     *        log2 of the context and holds them constant outside.
     */
    struct Anchors
    {
        std::array<double, 3> asymptote;  //!< M at 4K, 8K, 16K tokens, each in (0, 1]
        std::array<double, 3> sharpness;  //!< k at 4K, 8K, 16K tokens, each in (0, 1e4]
        std::array<double, 3> inflection; //!< tau at 4K, 8K, 16K tokens, each in (0, 1)

        /**
         * \brief Check every parameter.
         * \throws std::invalid_argument naming the parameter, its length and valid range
         */
        void Validate() const;
    };

    /**
     * \param calibration the calibration
     * \return its anchors (doc/edge-llm-design.rst, ImpactHO accuracy utility, Calibrations)
     */
    static Anchors CalibrationAnchors(Calibration calibration);

    /// \return "headline" or "joint"
    static std::string CalibrationName(Calibration calibration);

    /**
     * \param name "headline" or "joint" ("table2" is accepted for "joint")
     * \throws std::invalid_argument for another name (listing the valid ones)
     */
    static Calibration ParseCalibration(const std::string& name);

    /**
     * \brief The presets of doc/edge-llm-design.rst, ImpactHO accuracy utility (Qwen3-8B on RULER).
     *
     * Importance order (Fast KVzip): algebraic, with the anchors of \p calibration: for
     * HEADLINE (the default) tau = 0.065, k = 45, M = 0.9535 (4K tokens), 0.940 (8K),
     * 0.9302 (16K); for JOINT the per-length fit of doc/edge-llm-design.rst. Each parameter is
     * linear in log2 of the context between the anchors and constant outside. Random order
     * (a documented choice, doc/edge-llm-design.rst): tau = 0.45, k = 8, the calibration's M:
     * without importance, accuracy needs about half the cache.
     * \param contextTokens the context length, tokens, >= 1
     * \param importanceOrder true for Fast KVzip order, false for random order
     * \param kvAccuracyLoss share of M lost by storing the cache at a lower KV precision
     *        q, in [0, 1): M becomes M (1 - kvAccuracyLoss) (doc/edge-llm-design.rst, KV cache
     *        size: q shrinks the bytes; the accuracy effect goes through the utility). 0
     *        at q = 16.
     * \param calibration which anchors
     * \throws std::invalid_argument if contextTokens is 0 or kvAccuracyLoss is outside
     *         [0, 1)
     */
    static AccuracyUtility Preset(uint64_t contextTokens,
                                  bool importanceOrder = true,
                                  double kvAccuracyLoss = 0,
                                  Calibration calibration = HEADLINE);

    /**
     * \brief Preset() with explicit anchors (e.g. a candidate of the calibration fit).
     * \param anchors the importance-order parameters at 4K, 8K, 16K tokens (validated)
     * \param contextTokens the context length, tokens, >= 1
     * \param importanceOrder true for Fast KVzip order, false for random order
     * \param kvAccuracyLoss share of M lost at a lower KV precision, in [0, 1)
     * \throws std::invalid_argument for a bad anchor, a context of 0 tokens or a loss
     *         outside [0, 1)
     */
    static AccuracyUtility FromAnchors(const Anchors& anchors,
                                       uint64_t contextTokens,
                                       bool importanceOrder = true,
                                       double kvAccuracyLoss = 0);

    /// What Fit() returns.
    struct FitResult
    {
        double asymptote{0};  //!< M
        double sharpness{0};  //!< k
        double inflection{0}; //!< tau
        double rSquared{0};   //!< Coefficient of determination of the fit
    };

    /**
     * \brief Least-squares fit of (M, k, tau) to measured (fraction, accuracy) points
     *        (GSL's multifit_nlinear, trust region with Levenberg-Marquardt steps).
     * \param points at least 4 points, fractions in [0, 1], accuracies in [0, 1]
     * \param family the curve family
     * \return the parameters and R^2
     * \throws std::invalid_argument for too few or out-of-range points, or if the fit
     *         does not converge to parameters in range
     */
    static FitResult Fit(const std::vector<std::pair<double, double>>& points, Family family);
};

} // namespace ns3

#endif /* ACCURACY_UTILITY_H */
