/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * Parameter-sweep campaigns of the module's programs: on this machine's cores, or as
 * Slurm job arrays with a dependent merge job (doc/edge-llm-user.rst, "Sweeps and clusters").
 *
 *   edge-llm-campaign CAMPAIGN.json [--jobs N]            run locally, then merge
 *   edge-llm-campaign CAMPAIGN.json --slurm [--dry-run]   submit (or print) the batch scripts
 *   edge-llm-campaign CAMPAIGN.json --merge               merge the finished runs only
 *   edge-llm-campaign --task=I --runList=FILE             one run (what a Slurm array task does)
 *
 * A campaign file names a program of build/bin, its fixed options, the swept options
 * (lists or ranges, Cartesian product), the runs per point (ns-3's --RngRun=1..runs),
 * the output folder and which CSV files of each run to merge. Each run gets its own
 * folder (<outputDir>/runs/p<point>/run-<k>/) with the exact command, its stdout and
 * stderr, its status and its --outputDir. A run counts as done only if its status says
 * "exit=0", its command is the campaign's current one and its CSV files exist; a rerun
 * runs (or submits) only the others and says how many. The merge writes, per CSV file,
 * <outputDir>/merged/<stem>.csv: per point and key (scheme, ...) the mean and Student-t
 * 95 % CI over runs of every numeric column, and one PNG per metric against the swept
 * variable, one line per scheme.
 */
#include "../../examples/studies/edge-llm-figure-writer.h"

#include "ns3/edge-llm-csv.h"
#include "ns3/edge-llm-stats.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace ns3;
namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

namespace
{

/// Bad input (campaign file, command line): "error: ..." and exit 2.
class InputError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// Something failed while running (a run, sbatch, a file): "error: ..." and exit 1.
class RunError : public std::runtime_error
{
  public:
    using std::runtime_error::runtime_error;
};

/// Most runs one campaign may have (a Slurm array of this many is already unusual).
constexpr std::size_t MAX_RUNS = 1000000;

/// One swept option: its name and its values as passed on the command line.
struct SweptOption
{
    std::string name;                //!< Option name, without dashes
    std::vector<std::string> values; //!< Values, in the campaign's order
    bool numeric{true};              //!< Every value is a finite number
};

/// Slurm resource requests (the "slurm" object of the campaign file).
struct SlurmSettings
{
    std::string partition;             //!< --partition (empty: the cluster's default)
    std::string time{"01:00:00"};      //!< --time per run
    uint32_t cpusPerTask{1};           //!< --cpus-per-task
    std::string mem;                   //!< --mem (empty: not requested)
    std::string account;               //!< --account (empty: not given)
    std::string qos;                   //!< --qos (empty: not given)
    uint32_t maxParallel{0};           //!< array throttle %N (0: none)
    uint32_t maxArraySize{1000};       //!< tasks per array job (Slurm's MaxArraySize - 1)
    std::vector<std::string> extra;    //!< more #SBATCH lines, e.g. "--constraint=x86"
    std::string mergeTime{"00:30:00"}; //!< --time of the merge job
};

/// The "merge" object: which CSV files of each run, and how.
struct MergeSettings
{
    std::vector<std::string> files;          //!< paths inside the run's output folder
    std::string schemeColumn{"scheme"};      //!< column naming the curve (if present)
    std::vector<std::string> keys;           //!< explicit key columns (empty: non-numeric ones)
    bool keysGiven{false};                   //!< "keys" was in the file
    std::vector<std::string> metrics;        //!< explicit metric columns (empty: numeric ones)
    std::vector<std::string> perRun{"mean"}; //!< within-run reductions of several rows
};

/// A whole campaign, as read and resolved from its file.
struct Campaign
{
    std::string file;                                       //!< the campaign file, absolute
    std::string name;                                       //!< job name, file stem by default
    std::string program;                                    //!< absolute path
    std::vector<std::pair<std::string, std::string>> fixed; //!< fixed options, file order
    std::vector<SweptOption> sweep;                         //!< swept options, file order
    uint32_t runs{1};                                       //!< runs per point
    uint32_t firstRun{1};                                   //!< first RngRun
    std::string outputDir;                                  //!< absolute
    std::string outputOption{"outputDir"};                  //!< the program's output option
    MergeSettings merge;                                    //!< what to merge
    std::string plotX;                                      //!< x axis: a swept option
    std::vector<std::string> plotMetrics;                   //!< merged columns to plot
    SlurmSettings slurm;                                    //!< resources
};

/// One run: a point of the sweep and an RngRun.
struct Run
{
    std::size_t point{0};          //!< point index (Cartesian order, last option fastest)
    uint32_t rngRun{1};            //!< ns-3's --RngRun
    std::string dir;               //!< its folder, absolute
    std::vector<std::string> argv; //!< the exact command
};

std::string
Join(const std::vector<std::string>& items, const std::string& sep)
{
    std::string out;
    for (std::size_t i = 0; i < items.size(); ++i)
    {
        out += (i ? sep : "") + items[i];
    }
    return out;
}

/// Single-quoted for a POSIX shell, unless it needs no quotes.
std::string
ShellQuote(const std::string& s)
{
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789_-+=/.,:@%") == std::string::npos)
    {
        return s;
    }
    std::string out = "'";
    for (char c : s)
    {
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return out + "'";
}

/// A CSV field, quoted (RFC 4180) only if it holds a comma, a quote or a line break.
std::string
CsvQuote(const std::string& s)
{
    if (s.find_first_of(",\"\r\n") == std::string::npos)
    {
        return s;
    }
    std::string out = "\"";
    for (char c : s)
    {
        out += c == '"' ? std::string("\"\"") : std::string(1, c);
    }
    return out + "\"";
}

std::string
ReadFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return in ? s.str() : std::string();
}

bool
WriteText(const std::string& path, const std::string& text)
{
    return WriteFileAtomically(path, text);
}

/// "0:42", "12:05", "2:03:44"
std::string
Clock(double seconds)
{
    const long s = std::lround(std::max(0.0, seconds));
    std::ostringstream o;
    if (s >= 3600)
    {
        o << s / 3600 << ":" << std::setw(2) << std::setfill('0') << (s / 60) % 60;
    }
    else
    {
        o << s / 60;
    }
    o << ":" << std::setw(2) << std::setfill('0') << s % 60;
    return o.str();
}

// ---------------------------------------------------------------- campaign file

/// A scalar JSON value as command-line text.
std::string
ScalarText(const Json& v, const std::string& where)
{
    if (v.is_string())
    {
        const std::string s = v.get<std::string>();
        if (s.find_first_of("\n\r") != std::string::npos)
        {
            throw InputError(where + ": must not contain a line break");
        }
        return s;
    }
    if (v.is_boolean())
    {
        return v.get<bool>() ? "true" : "false";
    }
    if (v.is_number())
    {
        return v.dump();
    }
    throw InputError(where + ": must be a string, number or boolean, got " + v.dump());
}

void
CheckKeys(const Json& object, const std::string& where, const std::set<std::string>& known)
{
    for (const auto& item : object.items())
    {
        if (!known.count(item.key()))
        {
            std::vector<std::string> names(known.begin(), known.end());
            throw InputError(where + ": unknown key \"" + item.key() +
                             "\"; valid: " + Join(names, ", "));
        }
    }
}

std::string
GetString(const Json& object, const std::string& key, const std::string& where)
{
    const Json& v = object.at(key);
    if (!v.is_string())
    {
        throw InputError(where + "\"" + key + "\": must be a string, got " + v.dump());
    }
    return v.get<std::string>();
}

uint32_t
GetUnsigned(const Json& object,
            const std::string& key,
            const std::string& where,
            uint32_t min,
            uint32_t max)
{
    const Json& v = object.at(key);
    if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > max)
    {
        throw InputError(where + "\"" + key + "\": must be an integer in [" + std::to_string(min) +
                         ", " + std::to_string(max) + "], got " + v.dump());
    }
    return static_cast<uint32_t>(v.get<int64_t>());
}

std::vector<std::string>
GetStringList(const Json& object, const std::string& key, const std::string& where)
{
    const Json& v = object.at(key);
    std::vector<std::string> out;
    if (v.is_array())
    {
        for (const auto& item : v)
        {
            if (!item.is_string() || item.get<std::string>().empty())
            {
                out.clear();
                break;
            }
            out.push_back(item.get<std::string>());
        }
        if (out.size() == v.size())
        {
            return out;
        }
    }
    throw InputError(where + "\"" + key + "\": must be a list of non-empty strings, got " +
                     v.dump());
}

/// An option name as given to the program: no dashes, no '=', no blanks.
void
CheckOptionName(const std::string& name, const std::string& where)
{
    if (name.empty() || name[0] == '-' || name.find_first_of("= \t\n'\"") != std::string::npos)
    {
        throw InputError(where + ": option name '" + name +
                         "' must be the name without dashes (e.g. backhaulGbps), no '=' or "
                         "blanks");
    }
}

/// Values of a range {"from": a, "to": b, "step": s} (b included) or {"from", "to", "count"}.
std::vector<std::string>
RangeValues(const Json& r, const std::string& where)
{
    CheckKeys(r, where, {"from", "to", "step", "count"});
    for (const char* k : {"from", "to"})
    {
        if (!r.contains(k) || !r.at(k).is_number())
        {
            throw InputError(where + ": a range needs numbers \"from\" and \"to\" (and \"step\" "
                                     "or \"count\")");
        }
    }
    const double from = r.at("from").get<double>();
    const double to = r.at("to").get<double>();
    if (!(to >= from) || !std::isfinite(from) || !std::isfinite(to))
    {
        throw InputError(where + ": \"to\" must be >= \"from\"");
    }
    if (r.contains("step") == r.contains("count"))
    {
        throw InputError(where + ": a range needs exactly one of \"step\" (> 0) and \"count\"");
    }
    std::vector<double> xs;
    if (r.contains("step"))
    {
        const double step = r.at("step").is_number() ? r.at("step").get<double>() : -1;
        if (!(step > 0) || (to - from) / step > 1e5)
        {
            throw InputError(where + ": \"step\" must be a number > 0 giving at most 100000 "
                                     "values");
        }
        const auto n = static_cast<std::size_t>(std::floor((to - from) / step + 1e-9));
        for (std::size_t i = 0; i <= n; ++i)
        {
            xs.push_back(from + static_cast<double>(i) * step);
        }
    }
    else
    {
        const Json& c = r.at("count");
        if (!c.is_number_integer() || c.get<int64_t>() < 1 || c.get<int64_t>() > 100000 ||
            (c.get<int64_t>() == 1 && to != from))
        {
            throw InputError(where +
                             ": \"count\" must be an integer in [1, 100000] (1 only "
                             "if from = to), got " +
                             c.dump());
        }
        const auto n = static_cast<std::size_t>(c.get<int64_t>());
        for (std::size_t i = 0; i < n; ++i)
        {
            xs.push_back(n == 1 ? from
                                : from + (to - from) * static_cast<double>(i) /
                                             static_cast<double>(n - 1));
        }
    }
    const bool integral = r.at("from").is_number_integer() &&
                          (!r.contains("step") || r.at("step").is_number_integer()) &&
                          !r.contains("count");
    std::vector<std::string> out;
    for (double x : xs)
    {
        std::ostringstream o;
        o << std::setprecision(integral ? 17 : 12) << x;
        out.push_back(o.str());
    }
    return out;
}

fs::path
SelfDirectory()
{
    std::error_code ec;
    const fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path() : self.parent_path();
}

/**
 * \brief Read a campaign file as JSON.
 * \param path the file
 * \return its top-level object
 * \throws InputError if it cannot be read, is not JSON or not an object
 */
Json
ReadCampaignJson(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw InputError(path + ": cannot open the campaign file");
    }
    Json j;
    try
    {
        j = Json::parse(in);
    }
    catch (const Json::parse_error& e)
    {
        throw InputError(path + ": not valid JSON: " + e.what());
    }
    if (!j.is_object())
    {
        throw InputError(path + ": must be a JSON object");
    }
    return j;
}

/**
 * \brief "name" (the file's stem by default) and "program" (a program beside this tool, or a
 *        path), resolved to an executable.
 * \param j the campaign file's object
 * \param path the campaign file
 * \param c the campaign, name and program set
 * \throws InputError naming the key
 */
void
LoadNameAndProgram(const Json& j, const std::string& path, Campaign& c)
{
    const std::string top = path + ": ";
    c.name = j.contains("name") ? GetString(j, "name", top) : fs::path(path).stem().string();
    if (c.name.empty() ||
        c.name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVW"
                                 "XYZ0123456789._-") != std::string::npos)
    {
        throw InputError(top + "\"name\": must be letters, digits, '.', '_' or '-', got '" +
                         c.name + "'");
    }
    if (!j.contains("program"))
    {
        throw InputError(top + "\"program\" is required (a program of build/bin, e.g. "
                               "edge-llm-lte-handover, or a path)");
    }
    const std::string program = GetString(j, "program", top);
    fs::path exe =
        program.find('/') == std::string::npos ? SelfDirectory() / program : fs::absolute(program);
    exe = exe.lexically_normal();
    if (program.empty() || access(exe.c_str(), X_OK) != 0 || fs::is_directory(exe))
    {
        throw InputError(top + "\"program\": '" + program + "' is not an executable (looked for " +
                         exe.string() + ")");
    }
    c.program = exe.string();
}

/// The options a campaign sets: each once, and none the campaign sets itself.
class OptionNames
{
  public:
    /**
     * \brief Reserve the campaign's own options.
     * \param outputOption the program's output option (a folder per run)
     */
    explicit OptionNames(std::string outputOption)
        : m_outputOption(std::move(outputOption)),
          m_seen{m_outputOption, "RngRun"}
    {
    }

    /**
     * \brief Take one option name.
     * \param name the option, without dashes
     * \param where the key's place in the file, for the message
     * \throws InputError if the name is not an option name, is taken, or is the campaign's
     */
    void Take(const std::string& name, const std::string& where)
    {
        CheckOptionName(name, where);
        if (!m_seen.insert(name).second)
        {
            throw InputError(where + ": option '" + name +
                             "' is set twice or is set by the "
                             "campaign itself (RngRun: from \"runs\"; " +
                             m_outputOption + ": a folder per run)");
        }
    }

  private:
    std::string m_outputOption;   //!< The program's output option
    std::set<std::string> m_seen; //!< Names taken so far
};

/**
 * \brief One "sweep" entry: a list of values or a range object, each value once.
 * \param name the option
 * \param value its JSON value
 * \param where the key's place in the file, for the message
 * \return the swept option
 * \throws InputError naming the key
 */
SweptOption
LoadSweptOption(const std::string& name, const Json& value, const std::string& where)
{
    SweptOption o;
    o.name = name;
    if (value.is_array())
    {
        for (const auto& v : value)
        {
            o.values.push_back(ScalarText(v, where));
        }
    }
    else if (value.is_object())
    {
        o.values = RangeValues(value, where);
    }
    else
    {
        throw InputError(where + ": must be a list of values or a range object");
    }
    if (o.values.empty())
    {
        throw InputError(where + ": no values");
    }
    std::set<std::string> unique(o.values.begin(), o.values.end());
    if (unique.size() != o.values.size())
    {
        throw InputError(where + ": a value is listed twice");
    }
    for (const auto& v : o.values)
    {
        double x;
        o.numeric = o.numeric && EdgeLlmParseDouble(v, x);
    }
    return o;
}

/**
 * \brief "outputOption", "options" (fixed) and "sweep", each option once; "runs" and
 *        "firstRun", at most MAX_RUNS runs in all.
 * \param j the campaign file's object
 * \param top the file's name and ": ", for messages
 * \param c the campaign, filled
 * \throws InputError naming the key
 */
void
LoadOptionsAndSweep(const Json& j, const std::string& top, Campaign& c)
{
    c.outputOption = j.contains("outputOption") ? GetString(j, "outputOption", top) : "outputDir";
    CheckOptionName(c.outputOption, top + "\"outputOption\"");
    OptionNames names(c.outputOption);
    if (j.contains("options"))
    {
        if (!j.at("options").is_object())
        {
            throw InputError(top + "\"options\": must be an object {\"option\": value}");
        }
        for (const auto& item : j.at("options").items())
        {
            const std::string where = top + "\"options\".\"" + item.key() + "\"";
            names.Take(item.key(), where);
            c.fixed.emplace_back(item.key(), ScalarText(item.value(), where));
        }
    }
    if (!j.contains("sweep") || !j.at("sweep").is_object() || j.at("sweep").empty())
    {
        throw InputError(top + "\"sweep\": required, an object {\"option\": [values] or "
                               "{\"from\", \"to\", \"step\"|\"count\"}} with at least one "
                               "option");
    }
    std::size_t points = 1;
    for (const auto& item : j.at("sweep").items())
    {
        const std::string where = top + "\"sweep\".\"" + item.key() + "\"";
        names.Take(item.key(), where);
        c.sweep.push_back(LoadSweptOption(item.key(), item.value(), where));
        points *= c.sweep.back().values.size();
        if (points > MAX_RUNS)
        {
            throw InputError(top + "\"sweep\": more than " + std::to_string(MAX_RUNS) + " points");
        }
    }
    if (!j.contains("runs"))
    {
        throw InputError(top + "\"runs\" is required: runs per point (--RngRun=firstRun..)");
    }
    c.runs = GetUnsigned(j, "runs", top, 1, 100000);
    c.firstRun = j.contains("firstRun") ? GetUnsigned(j, "firstRun", top, 1, 1000000000) : 1;
    if (points * c.runs > MAX_RUNS)
    {
        throw InputError(top + "points x \"runs\" = " + std::to_string(points * c.runs) +
                         " runs; at most " + std::to_string(MAX_RUNS));
    }
}

/**
 * \brief "outputDir" (or the command line's), absolute, without a trailing '/'.
 * \param j the campaign file's object
 * \param top the file's name and ": ", for messages
 * \param outputDirOverride the command line's --outputDir (empty: none)
 * \param c the campaign, outputDir set
 * \throws InputError if empty
 */
void
LoadOutputDir(const Json& j,
              const std::string& top,
              const std::string& outputDirOverride,
              Campaign& c)
{
    std::string out = outputDirOverride;
    if (out.empty())
    {
        out = j.contains("outputDir") ? GetString(j, "outputDir", top)
                                      : "results/campaigns/" + c.name;
    }
    if (out.empty())
    {
        throw InputError(top + "\"outputDir\": must not be empty");
    }
    c.outputDir = fs::absolute(out).lexically_normal().string();
    while (c.outputDir.size() > 1 && c.outputDir.back() == '/')
    {
        c.outputDir.pop_back();
    }
}

/**
 * \brief The "merge" object: relative .csv files, each once; scheme column, keys,
 *        metrics, per-run reductions.
 * \param j the campaign file's object
 * \param path the campaign file
 * \param c the campaign, merge set
 * \throws InputError naming the key
 */
void
LoadMerge(const Json& j, const std::string& path, Campaign& c)
{
    const std::string top = path + ": ";
    if (!j.contains("merge") || !j.at("merge").is_object())
    {
        throw InputError(top +
                         "\"merge\": required, an object with \"files\": the CSV files "
                         "each run writes into its --" +
                         c.outputOption + " (e.g. [\"handover-delays.csv\"])");
    }
    const Json& m = j.at("merge");
    const std::string mw = top + "\"merge\".";
    CheckKeys(m, path + ": \"merge\"", {"files", "schemeColumn", "keys", "metrics", "perRun"});
    if (!m.contains("files"))
    {
        throw InputError(mw + "\"files\" is required");
    }
    c.merge.files = GetStringList(m, "files", mw);
    if (c.merge.files.empty())
    {
        throw InputError(mw + "\"files\": must list at least one CSV file each run writes "
                              "(e.g. [\"handover-delays.csv\"])");
    }
    std::set<std::string> stems;
    for (const auto& f : c.merge.files)
    {
        const fs::path p(f);
        if (p.is_absolute() || f.find("..") != std::string::npos || p.extension() != ".csv")
        {
            throw InputError(mw + "\"files\": '" + f +
                             "' must be a relative path ending in .csv "
                             "inside the run's output folder");
        }
        std::string stem = (p.parent_path() / p.stem()).string();
        std::replace(stem.begin(), stem.end(), '/', '-');
        if (!stems.insert(stem).second)
        {
            throw InputError(mw + "\"files\": '" + f + "' is listed twice");
        }
    }
    if (m.contains("schemeColumn"))
    {
        c.merge.schemeColumn = GetString(m, "schemeColumn", mw);
    }
    if (m.contains("keys"))
    {
        c.merge.keysGiven = true;
        c.merge.keys =
            m.at("keys").empty() ? std::vector<std::string>{} : GetStringList(m, "keys", mw);
    }
    if (m.contains("metrics"))
    {
        c.merge.metrics = GetStringList(m, "metrics", mw);
    }
    if (m.contains("perRun"))
    {
        c.merge.perRun = GetStringList(m, "perRun", mw);
        std::set<std::string> u;
        for (const auto& s : c.merge.perRun)
        {
            if ((s != "mean" && s != "max" && s != "min" && s != "sum") || !u.insert(s).second)
            {
                throw InputError(mw + "\"perRun\": '" + s +
                                 "': each must be one of mean, max, "
                                 "min, sum, each once");
            }
        }
    }
}

/**
 * \brief The "plot" object: x (a numeric swept option; the first one by default) and the
 *        metrics to plot.
 * \param j the campaign file's object
 * \param path the campaign file
 * \param c the campaign, plotX and plotMetrics set
 * \throws InputError naming the key
 */
std::string MergedName(const std::string& how, const std::string& m);

void
LoadPlot(const Json& j, const std::string& path, Campaign& c)
{
    const std::string top = path + ": ";
    if (j.contains("plot"))
    {
        const Json& p = j.at("plot");
        if (!p.is_object())
        {
            throw InputError(top +
                             "\"plot\": must be an object {\"x\": option, \"metrics\": [...]}");
        }
        CheckKeys(p, path + ": \"plot\"", {"x", "metrics"});
        if (p.contains("x"))
        {
            c.plotX = GetString(p, "x", top + "\"plot\".");
            auto it = std::find_if(c.sweep.begin(), c.sweep.end(), [&](const SweptOption& o) {
                return o.name == c.plotX;
            });
            if (it == c.sweep.end() || !it->numeric)
            {
                throw InputError(top + "\"plot\".\"x\": '" + c.plotX +
                                 "' must be a swept option with numeric values");
            }
        }
        if (p.contains("metrics"))
        {
            c.plotMetrics = GetStringList(p, "metrics", top + "\"plot\".");
            // With the merge's metrics named, their merged names are known now: a plot
            // metric that is none of them is refused before any run, not at the merge
            // after all of them.
            if (!c.merge.metrics.empty())
            {
                std::vector<std::string> merged;
                for (const auto& m : c.merge.metrics)
                {
                    for (const auto& how : c.merge.perRun)
                    {
                        merged.push_back(MergedName(how, m));
                    }
                }
                for (const auto& name : c.plotMetrics)
                {
                    if (std::find(merged.begin(), merged.end(), name) == merged.end())
                    {
                        throw InputError(top + "\"plot\".\"metrics\": no merged metric '" + name +
                                         "' (merged: " + Join(merged, ", ") +
                                         "; perRun mean keeps the column's name, the "
                                         "others prefix it, e.g. max_<column>)");
                    }
                }
            }
        }
    }
    if (c.plotX.empty())
    {
        for (const auto& o : c.sweep)
        {
            if (o.numeric)
            {
                c.plotX = o.name;
                break;
            }
        }
    }
}

/**
 * \brief The "slurm" object: resource requests, each a word without blanks or quotes.
 * \param j the campaign file's object
 * \param path the campaign file
 * \param c the campaign, slurm set
 * \throws InputError naming the key
 */
void
LoadSlurm(const Json& j, const std::string& path, Campaign& c)
{
    if (!j.contains("slurm"))
    {
        return;
    }
    const std::string top = path + ": ";
    const Json& s = j.at("slurm");
    const std::string sw = top + "\"slurm\".";
    if (!s.is_object())
    {
        throw InputError(top + "\"slurm\": must be an object");
    }
    CheckKeys(s,
              path + ": \"slurm\"",
              {"partition",
               "time",
               "cpusPerTask",
               "mem",
               "account",
               "qos",
               "maxParallel",
               "maxArraySize",
               "extra",
               "mergeTime"});
    auto text = [&](const char* key, std::string& into) {
        if (s.contains(key))
        {
            into = GetString(s, key, sw);
            if (into.find_first_of(" \t\n'\"\\$`") != std::string::npos)
            {
                throw InputError(sw + "\"" + key + "\": no blanks or quotes, got '" + into + "'");
            }
        }
    };
    text("partition", c.slurm.partition);
    text("time", c.slurm.time);
    text("mem", c.slurm.mem);
    text("account", c.slurm.account);
    text("qos", c.slurm.qos);
    text("mergeTime", c.slurm.mergeTime);
    if (s.contains("cpusPerTask"))
    {
        c.slurm.cpusPerTask = GetUnsigned(s, "cpusPerTask", sw, 1, 4096);
    }
    if (s.contains("maxParallel"))
    {
        c.slurm.maxParallel = GetUnsigned(s, "maxParallel", sw, 0, 1000000);
    }
    if (s.contains("maxArraySize"))
    {
        c.slurm.maxArraySize = GetUnsigned(s, "maxArraySize", sw, 1, 4000000);
    }
    if (s.contains("extra"))
    {
        c.slurm.extra = GetStringList(s, "extra", sw);
        for (const auto& e : c.slurm.extra)
        {
            if (e.rfind("--", 0) != 0 || e.find('\n') != std::string::npos)
            {
                throw InputError(sw + "\"extra\": '" + e +
                                 "' must be one sbatch option "
                                 "starting with --");
            }
        }
    }
    if (c.slurm.time.empty() || c.slurm.mergeTime.empty())
    {
        throw InputError(sw + "\"time\"/\"mergeTime\": must not be empty");
    }
}

/**
 * \brief Read and check a campaign file; every error names the key and its valid range.
 * \param path the campaign file
 * \param outputDirOverride the command line's --outputDir (empty: the file's)
 * \return the campaign, resolved (absolute paths)
 * \throws InputError for a bad file
 */
Campaign
LoadCampaign(const std::string& path, const std::string& outputDirOverride)
{
    Campaign c;
    c.file = fs::absolute(path).lexically_normal().string();
    const Json j = ReadCampaignJson(path);
    CheckKeys(j,
              path,
              {"name",
               "program",
               "options",
               "sweep",
               "runs",
               "firstRun",
               "outputDir",
               "outputOption",
               "merge",
               "plot",
               "slurm",
               "comment"});
    const std::string top = path + ": ";
    LoadNameAndProgram(j, path, c);
    LoadOptionsAndSweep(j, top, c);
    LoadOutputDir(j, top, outputDirOverride, c);
    LoadMerge(j, path, c);
    LoadPlot(j, path, c);
    LoadSlurm(j, path, c);
    return c;
}

// ---------------------------------------------------------------- runs

std::string
PointDirName(std::size_t point, std::size_t points)
{
    const std::size_t width = std::max<std::size_t>(3, std::to_string(points - 1).size());
    std::ostringstream o;
    o << "p" << std::setw(static_cast<int>(width)) << std::setfill('0') << point;
    return o.str();
}

std::size_t
PointCount(const Campaign& c)
{
    std::size_t n = 1;
    for (const auto& o : c.sweep)
    {
        n *= o.values.size();
    }
    return n;
}

/// The values of each swept option at point \p p (the last option varies fastest).
std::vector<std::string>
PointValues(const Campaign& c, std::size_t p)
{
    std::vector<std::string> values(c.sweep.size());
    for (std::size_t i = c.sweep.size(); i-- > 0;)
    {
        values[i] = c.sweep[i].values[p % c.sweep[i].values.size()];
        p /= c.sweep[i].values.size();
    }
    return values;
}

std::vector<Run>
MakeRuns(const Campaign& c)
{
    std::vector<Run> runs;
    const std::size_t points = PointCount(c);
    for (std::size_t p = 0; p < points; ++p)
    {
        const std::vector<std::string> values = PointValues(c, p);
        for (uint32_t k = 0; k < c.runs; ++k)
        {
            Run r;
            r.point = p;
            r.rngRun = c.firstRun + k;
            r.dir = c.outputDir + "/runs/" + PointDirName(p, points) + "/run-" +
                    std::to_string(r.rngRun);
            r.argv.push_back(c.program);
            for (const auto& [name, value] : c.fixed)
            {
                r.argv.push_back("--" + name + "=" + value);
            }
            for (std::size_t i = 0; i < c.sweep.size(); ++i)
            {
                r.argv.push_back("--" + c.sweep[i].name + "=" + values[i]);
            }
            r.argv.push_back("--RngRun=" + std::to_string(r.rngRun));
            r.argv.push_back("--" + c.outputOption + "=" + r.dir + "/out");
            runs.push_back(r);
        }
    }
    return runs;
}

/// The run's stored command (run.json), empty if none.
std::vector<std::string>
StoredCommand(const std::string& dir)
{
    try
    {
        const Json j = Json::parse(ReadFile(dir + "/run.json"));
        return j.at("argv").get<std::vector<std::string>>();
    }
    catch (const std::exception&)
    {
        return {};
    }
}

/// "" if the run is done, else why not ("not run", "exit=1", "no out/x.csv", ...).
std::string
WhyNotDone(const Campaign& c, const Run& r)
{
    const std::string status = ReadFile(r.dir + "/status");
    if (status.empty())
    {
        return "not run";
    }
    if (status.rfind("exit=0 ", 0) != 0)
    {
        return status.substr(0, status.find(' '));
    }
    if (StoredCommand(r.dir) != r.argv)
    {
        return "its command changed";
    }
    for (const auto& f : c.merge.files)
    {
        if (!fs::is_regular_file(r.dir + "/out/" + f))
        {
            return "exit=0 but no out/" + f;
        }
    }
    return "";
}

/// Clears a run's folder and writes its command (run.json, command.txt).
void
PrepareRun(const Campaign& c, const Run& r)
{
    std::error_code ec;
    fs::create_directories(r.dir, ec);
    for (const char* f : {"status", "stdout.txt", "stderr.txt"})
    {
        fs::remove(r.dir + "/" + f, ec);
    }
    fs::remove_all(r.dir + "/out", ec);
    Json j;
    j["campaign"] = c.name;
    j["point"] = r.point;
    Json point = Json::object();
    const std::vector<std::string> values = PointValues(c, r.point);
    for (std::size_t i = 0; i < c.sweep.size(); ++i)
    {
        point[c.sweep[i].name] = values[i];
    }
    j["swept"] = point;
    j["RngRun"] = r.rngRun;
    j["argv"] = r.argv;
    std::vector<std::string> quoted;
    for (const auto& a : r.argv)
    {
        quoted.push_back(ShellQuote(a));
    }
    if (!WriteText(r.dir + "/run.json", j.dump(2) + "\n") ||
        !WriteText(r.dir + "/command.txt",
                   "# RngRun " + std::to_string(r.rngRun) + "; run from this folder:\ncd " +
                       ShellQuote(r.dir) + " && " + Join(quoted, " ") + "\n"))
    {
        throw RunError("cannot write the command of " + r.dir);
    }
}

/// Starts the run of folder \p dir (its run.json): stdout/stderr into the folder.
pid_t
SpawnRun(const std::string& dir)
{
    const std::vector<std::string> argv = StoredCommand(dir);
    if (argv.empty())
    {
        throw RunError(dir + "/run.json: missing or unreadable (prepare the run first)");
    }
    std::cout.flush();
    std::cerr.flush();
    const pid_t pid = fork();
    if (pid < 0)
    {
        throw RunError(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0)
    {
        const std::string out = dir + "/stdout.txt";
        const std::string err = dir + "/stderr.txt";
        const int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (o < 0 || e < 0 || chdir(dir.c_str()) != 0)
        {
            _exit(126);
        }
        dup2(o, STDOUT_FILENO);
        dup2(e, STDERR_FILENO);
        close(o);
        close(e);
        std::vector<char*> args;
        for (const auto& a : argv)
        {
            args.push_back(const_cast<char*>(a.c_str()));
        }
        args.push_back(nullptr);
        execv(args[0], args.data());
        const std::string msg =
            "error: cannot execute " + argv[0] + ": " + std::strerror(errno) + "\n";
        (void)!write(STDERR_FILENO, msg.c_str(), msg.size());
        _exit(127);
    }
    return pid;
}

/// Writes the run's status file from its wait status.
void
FinishRun(const std::string& dir, int waitStatus, double wallSeconds)
{
    std::ostringstream s;
    if (WIFEXITED(waitStatus))
    {
        s << "exit=" << WEXITSTATUS(waitStatus);
    }
    else
    {
        s << "signal=" << (WIFSIGNALED(waitStatus) ? WTERMSIG(waitStatus) : -1);
    }
    char host[256] = "";
    gethostname(host, sizeof(host) - 1);
    s << " wall_s=" << std::fixed << std::setprecision(3) << wallSeconds << " host=" << host
      << "\n";
    if (!WriteText(dir + "/status", s.str()))
    {
        throw RunError("cannot write " + dir + "/status");
    }
}

/// The runs still to do, after "N of M runs already done" is decided.
std::vector<std::size_t>
RunsToDo(const Campaign& c, const std::vector<Run>& runs)
{
    std::vector<std::size_t> todo;
    for (std::size_t i = 0; i < runs.size(); ++i)
    {
        if (!WhyNotDone(c, runs[i]).empty())
        {
            todo.push_back(i);
        }
    }
    return todo;
}

/// points.csv: point index, folder and the swept values.
void
WritePoints(const Campaign& c)
{
    std::ostringstream o;
    o << "point,folder";
    for (const auto& s : c.sweep)
    {
        o << "," << CsvQuote(s.name);
    }
    o << "\n";
    const std::size_t points = PointCount(c);
    for (std::size_t p = 0; p < points; ++p)
    {
        o << p << ",runs/" << PointDirName(p, points);
        for (const auto& v : PointValues(c, p))
        {
            o << "," << CsvQuote(v);
        }
        o << "\n";
    }
    std::error_code ec;
    fs::create_directories(c.outputDir, ec);
    if (ec || !WriteText(c.outputDir + "/points.csv", o.str()))
    {
        throw RunError("cannot write to the output folder " + c.outputDir +
                       (ec ? ": " + ec.message() : std::string()));
    }
}

// ---------------------------------------------------------------- merge

/// One run's copy of a CSV file (the module's reader: RFC 4180 quotes accepted, any header).
EdgeLlmCsvTable
ReadCsv(const std::string& path)
{
    try
    {
        return EdgeLlmCsvTable(path);
    }
    catch (const EdgeLlmInputError& e)
    {
        throw RunError(e.what());
    }
}

/// Reduces one run's values of a column (several rows of one key) to one sample.
double
Reduce(const std::string& how, const std::vector<double>& v)
{
    if (how == "max")
    {
        return *std::max_element(v.begin(), v.end());
    }
    if (how == "min")
    {
        return *std::min_element(v.begin(), v.end());
    }
    double sum = 0;
    for (double x : v)
    {
        sum += x;
    }
    return how == "sum" ? sum : sum / static_cast<double>(v.size());
}

/// The merged column name of metric \p m reduced by \p how within a run.
std::string
MergedName(const std::string& how, const std::string& m)
{
    return how == "mean" ? m : how + "_" + m;
}

/// Text for a gnuplot label in double quotes: enhanced-text characters printed as is.
std::string
GnuplotText(const std::string& s)
{
    std::string out;
    for (char ch : s)
    {
        if (std::strchr("_^@&~{}", ch) != nullptr)
        {
            out += "\\\\";
        }
        else if (ch == '"')
        {
            out += '\\';
        }
        out += ch;
    }
    return out;
}

/**
 * \brief Read every run's copy of a merged file; every copy must have the same header.
 * \param runs the runs, in order
 * \param file the file, relative to a run's output folder
 * \return one table per run
 * \throws RunError if a copy is missing, unreadable or has another header
 */
std::vector<EdgeLlmCsvTable>
ReadRunTables(const std::vector<Run>& runs, const std::string& file)
{
    std::vector<EdgeLlmCsvTable> tables;
    for (const auto& r : runs)
    {
        tables.push_back(ReadCsv(r.dir + "/out/" + file));
        if (tables.back().GetColumns() != tables.front().GetColumns())
        {
            throw RunError(r.dir + "/out/" + file + ": header differs from " + runs[0].dir +
                           "/out/" + file + "'s");
        }
    }
    return tables;
}

/// The columns of a merged file: which group rows, which are averaged.
struct MergeColumns
{
    std::vector<std::size_t> keys;    //!< Key columns (the scheme column first, if present)
    std::vector<std::size_t> metrics; //!< Metric columns, in the merge's order
};

/**
 * \brief Choose the key and metric columns: the merge's explicit ones, else the non-numeric
 *        columns as keys and the numeric ones as metrics. A column is numeric when every
 *        non-empty field of every run parses as a finite number.
 * \param c the campaign (its merge settings)
 * \param file the file, for messages
 * \param header the file's columns
 * \param tables every run's table
 * \return the columns
 * \throws InputError for a named column that is missing, a metric not numeric or a key,
 *         or no metric at all
 */
MergeColumns
ChooseColumns(const Campaign& c,
              const std::string& file,
              const std::vector<std::string>& header,
              const std::vector<EdgeLlmCsvTable>& tables)
{
    auto column = [&](const std::string& name, const std::string& what) {
        const auto it = std::find(header.begin(), header.end(), name);
        if (it == header.end())
        {
            throw InputError(c.file + ": \"merge\".\"" + what + "\": no column '" + name + "' in " +
                             file + " (columns: " + Join(header, ", ") + ")");
        }
        return static_cast<std::size_t>(it - header.begin());
    };
    std::vector<bool> numeric(header.size(), true);
    for (const auto& t : tables)
    {
        for (std::size_t row = 0; row < t.GetRowCount(); ++row)
        {
            for (std::size_t i = 0; i < header.size(); ++i)
            {
                const std::string& field = t.GetString(row, i);
                double x;
                numeric[i] = numeric[i] && (field.empty() || EdgeLlmParseDouble(field, x));
            }
        }
    }
    MergeColumns m;
    auto isKey = [&m](std::size_t i) {
        return std::find(m.keys.begin(), m.keys.end(), i) != m.keys.end();
    };
    const auto scheme = std::find(header.begin(), header.end(), c.merge.schemeColumn);
    if (scheme != header.end())
    {
        m.keys.push_back(static_cast<std::size_t>(scheme - header.begin()));
    }
    // Explicit keys (c.merge.keys is empty unless given), else every non-numeric column.
    for (const auto& k : c.merge.keys)
    {
        if (const std::size_t i = column(k, "keys"); !isKey(i))
        {
            m.keys.push_back(i);
        }
    }
    for (std::size_t i = 0; !c.merge.keysGiven && i < header.size(); ++i)
    {
        if (!numeric[i] && !isKey(i))
        {
            m.keys.push_back(i);
        }
    }
    for (const auto& name : c.merge.metrics)
    {
        const std::size_t i = column(name, "metrics");
        if (!numeric[i])
        {
            throw InputError(c.file + ": \"merge\".\"metrics\": column '" + name + "' of " + file +
                             " is not numeric in every run");
        }
        if (isKey(i))
        {
            throw InputError(c.file + ": \"merge\".\"metrics\": '" + name + "' is a key column");
        }
        m.metrics.push_back(i);
    }
    for (std::size_t i = 0; c.merge.metrics.empty() && i < header.size(); ++i)
    {
        if (numeric[i] && !isKey(i))
        {
            m.metrics.push_back(i);
        }
    }
    if (m.metrics.empty())
    {
        throw InputError(c.file + ": \"merge\": " + file + " has no numeric column to merge");
    }
    return m;
}

/**
 * \brief The merged CSV's header: the swept options, the keys, runs, then per metric and
 *        within-run reduction its _mean and _ci95; checks "plot"."metrics" against it.
 * \param c the campaign
 * \param file the file, for messages
 * \param header the file's columns
 * \param columns the key and metric columns
 * \param mergedNames filled with each merged metric's name (reduction_metric)
 * \return the header line
 * \throws InputError for a plotted metric that is not merged
 */
std::string
MergedHeader(const Campaign& c,
             const std::string& file,
             const std::vector<std::string>& header,
             const MergeColumns& columns,
             std::vector<std::string>& mergedNames)
{
    std::vector<std::string> head;
    for (const auto& s : c.sweep)
    {
        head.push_back(CsvQuote(s.name));
    }
    for (std::size_t k : columns.keys)
    {
        head.push_back(CsvQuote(header[k]));
    }
    head.push_back("runs");
    for (std::size_t m : columns.metrics)
    {
        for (const auto& how : c.merge.perRun)
        {
            mergedNames.push_back(MergedName(how, header[m]));
            head.push_back(CsvQuote(mergedNames.back() + "_mean"));
            head.push_back(CsvQuote(mergedNames.back() + "_ci95"));
        }
    }
    for (const auto& name : c.plotMetrics)
    {
        if (std::find(mergedNames.begin(), mergedNames.end(), name) == mergedNames.end())
        {
            throw InputError(c.file + ": \"plot\".\"metrics\": no merged metric '" + name +
                             "' for " + file + " (merged: " + Join(mergedNames, ", ") + ")");
        }
    }
    return Join(head, ",");
}

/// One merged row's samples: a key of one point, one sample per run, metric and reduction.
struct Group
{
    std::vector<std::string> key;                          //!< key values
    uint32_t runs{0};                                      //!< runs that have this key
    std::vector<std::vector<std::vector<double>>> samples; //!< [metric][reduction][run]
};

/**
 * \brief Group one point's rows by key (first seen, runs in order, rows in file order) and
 *        reduce each run's rows of a group to one sample per metric and reduction (a run
 *        whose fields of a metric are all empty gives no sample: does not apply).
 * \param c the campaign (its reductions)
 * \param columns the key and metric columns
 * \param tables every run's table
 * \param begin the point's first run
 * \param end one past its last run
 * \return the point's groups
 */
std::vector<Group>
GroupPoint(const Campaign& c,
           const MergeColumns& columns,
           const std::vector<EdgeLlmCsvTable>& tables,
           std::size_t begin,
           std::size_t end)
{
    const std::size_t stats = c.merge.perRun.size();
    const std::vector<std::size_t>& metrics = columns.metrics;
    std::vector<Group> groups;
    std::map<std::vector<std::string>, std::size_t> index;
    for (std::size_t r = begin; r < end; ++r)
    {
        const EdgeLlmCsvTable& t = tables[r];
        // Rows of this run per group: [group][metric] -> values.
        std::map<std::size_t, std::vector<std::vector<double>>> values;
        for (std::size_t row = 0; row < t.GetRowCount(); ++row)
        {
            std::vector<std::string> key;
            for (std::size_t k : columns.keys)
            {
                key.push_back(t.GetString(row, k));
            }
            auto it = index.find(key);
            if (it == index.end())
            {
                it = index.emplace(key, groups.size()).first;
                Group g;
                g.key = key;
                g.samples.assign(metrics.size(), std::vector<std::vector<double>>(stats));
                groups.push_back(g);
            }
            auto& v = values[it->second];
            v.resize(metrics.size());
            for (std::size_t m = 0; m < metrics.size(); ++m)
            {
                double x;
                if (EdgeLlmParseDouble(t.GetString(row, metrics[m]), x))
                {
                    v[m].push_back(x);
                }
            }
        }
        for (const auto& [g, v] : values)
        {
            groups[g].runs++;
            for (std::size_t m = 0; m < metrics.size(); ++m)
            {
                for (std::size_t s = 0; s < stats && !v[m].empty(); ++s)
                {
                    groups[g].samples[m][s].push_back(Reduce(c.merge.perRun[s], v[m]));
                }
            }
        }
    }
    return groups;
}

/**
 * \brief One merged row: the point's swept values, the group's key, its runs, then each
 *        merged metric's mean and 95 % CI (empty where it has no sample, or one for the CI);
 *        appends the group's plot points.
 * \param c the campaign
 * \param point the point's swept values
 * \param xIndex the plotted swept option (c.sweep.size(): none)
 * \param g the group
 * \param figures per merged metric, its plot points, appended to
 * \return the row, without its newline
 */
std::string
MergedRow(const Campaign& c,
          const std::vector<std::string>& point,
          std::size_t xIndex,
          const Group& g,
          std::vector<std::vector<FigurePoint>>& figures)
{
    std::vector<std::string> fields;
    for (const auto& v : point)
    {
        fields.push_back(CsvQuote(v));
    }
    for (const auto& k : g.key)
    {
        fields.push_back(CsvQuote(k));
    }
    fields.push_back(std::to_string(g.runs));
    // The curve: the key values, then the swept values other than x.
    std::vector<std::string> series = g.key;
    for (std::size_t i = 0; i < c.sweep.size(); ++i)
    {
        if (i != xIndex)
        {
            series.push_back(c.sweep[i].name + "=" + point[i]);
        }
    }
    std::size_t col = 0;
    for (const auto& metric : g.samples)
    {
        for (const auto& samples : metric)
        {
            const SampleSummary sum = SummarizeSamples(samples);
            const double nan = std::numeric_limits<double>::quiet_NaN();
            fields.push_back(EdgeLlmCsvField(sum.n > 0 ? sum.mean : nan));
            fields.push_back(EdgeLlmCsvField(sum.n > 1 ? sum.ci95 : nan));
            if (sum.n > 0 && xIndex < c.sweep.size())
            {
                double x = 0;
                EdgeLlmParseDouble(point[xIndex], x);
                figures[col].push_back({x,
                                        series.empty() ? c.name : Join(series, " "),
                                        sum.mean,
                                        sum.n > 1 ? sum.ci95 : 0.0,
                                        false});
            }
            ++col;
        }
    }
    return Join(fields, ",");
}

/**
 * \brief Write one figure (CSV, gnuplot script, PNG) per merged metric ("plot"."metrics"
 *        only, if given) against the plotted swept option.
 * \param c the campaign
 * \param stem the merged file's path without extension
 * \param mergedNames each merged metric's name
 * \param figures per merged metric, its plot points
 * \throws RunError if a figure cannot be written
 */
void
WriteMergedFigures(const Campaign& c,
                   const std::string& stem,
                   const std::vector<std::string>& mergedNames,
                   const std::vector<std::vector<FigurePoint>>& figures)
{
    const std::size_t stats = c.merge.perRun.size();
    std::vector<std::string> pngs;
    for (std::size_t col = 0; col < mergedNames.size(); ++col)
    {
        const std::string& name = mergedNames[col];
        if (!c.plotMetrics.empty() &&
            std::find(c.plotMetrics.begin(), c.plotMetrics.end(), name) == c.plotMetrics.end())
        {
            continue;
        }
        std::ostringstream table;
        table << CsvQuote(c.plotX) << ",series," << CsvQuote(name + "_mean") << ","
              << CsvQuote(name + "_ci95") << "\n";
        for (const auto& pt : figures[col])
        {
            table << EdgeLlmCsvField(pt.x) << "," << CsvQuote(pt.series) << ","
                  << EdgeLlmCsvField(pt.mean) << "," << EdgeLlmCsvField(pt.ci95) << "\n";
        }
        std::vector<FigurePoint> plotted = figures[col];
        for (auto& pt : plotted)
        {
            pt.series = GnuplotText(pt.series);
        }
        std::ostringstream title;
        title << GnuplotText(c.name + ": " + name + " vs " + c.plotX) << "\\n"
              << GnuplotText(fs::path(c.program).filename().string()) << ", " << c.runs
              << " runs per point, mean and 95 % CI (Student t)";
        const std::string figStem = stem + "-" + name;
        if (!WriteFigure(
                figStem,
                table.str(),
                title.str(),
                GnuplotText(c.plotX),
                GnuplotText(name + " (" + c.merge.perRun[col % stats] + " over the rows of a run)"),
                plotted,
                {"set offsets graph 0.03, graph 0.03, 0, 0"}))
        {
            throw RunError("cannot write the figure " + figStem + ".png");
        }
        pngs.push_back(figStem + ".png");
    }
    std::cout << "wrote " << pngs.size() << " PNG" << (pngs.size() == 1 ? "" : "s") << " against "
              << c.plotX << ": " << (pngs.empty() ? std::string("-") : pngs.front())
              << (pngs.size() > 1 ? " ..." : "") << std::endl;
}

/// Merges one CSV file of every run and writes its PNGs.
void
MergeFile(const Campaign& c, const std::vector<Run>& runs, const std::string& file)
{
    const std::vector<EdgeLlmCsvTable> tables = ReadRunTables(runs, file);
    const std::vector<std::string>& header = tables.front().GetColumns();
    const MergeColumns columns = ChooseColumns(c, file, header, tables);
    std::vector<std::string> mergedNames;
    std::ostringstream csv;
    csv << MergedHeader(c, file, header, columns, mergedNames) << "\n";

    // The plot: x = the swept option plotX; a series per key and other swept values.
    std::size_t xIndex = c.sweep.size();
    for (std::size_t i = 0; i < c.sweep.size(); ++i)
    {
        if (c.sweep[i].name == c.plotX)
        {
            xIndex = i;
        }
    }
    std::vector<std::vector<FigurePoint>> figures(mergedNames.size());
    std::size_t rows = 0;
    for (std::size_t begin = 0; begin < runs.size();)
    {
        std::size_t end = begin;
        while (end < runs.size() && runs[end].point == runs[begin].point)
        {
            ++end;
        }
        const std::vector<std::string> point = PointValues(c, runs[begin].point);
        for (const auto& g : GroupPoint(c, columns, tables, begin, end))
        {
            csv << MergedRow(c, point, xIndex, g, figures) << "\n";
            ++rows;
        }
        begin = end;
    }

    const fs::path p(file);
    std::string stem = (p.parent_path() / p.stem()).string();
    std::replace(stem.begin(), stem.end(), '/', '-');
    const std::string dir = c.outputDir + "/merged";
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!WriteText(dir + "/" + stem + ".csv", csv.str()))
    {
        throw RunError("cannot write " + dir + "/" + stem + ".csv");
    }
    std::vector<std::string> keyNames;
    for (std::size_t k : columns.keys)
    {
        keyNames.push_back(header[k]);
    }
    std::cout << "merged " << runs.size() << " runs of " << file << " into " << dir << "/" << stem
              << ".csv (" << rows << " rows: " << PointCount(c) << " points x keys "
              << (keyNames.empty() ? std::string("none") : Join(keyNames, ", "))
              << "; mean and 95 % CI of " << mergedNames.size() << " metrics)" << std::endl;
    if (xIndex >= c.sweep.size())
    {
        std::cout << "no PNG: no swept option has numeric values to plot against" << std::endl;
        return;
    }
    WriteMergedFigures(c, dir + "/" + stem, mergedNames, figures);
}

/// Merges every "merge" file; throws if a run is not done.
void
Merge(const Campaign& c, const std::vector<Run>& runs)
{
    std::size_t missing = 0;
    std::string first;
    for (const auto& r : runs)
    {
        const std::string why = WhyNotDone(c, r);
        if (!why.empty())
        {
            if (missing++ == 0)
            {
                first = r.dir + " (" + why + ")";
            }
        }
    }
    if (missing > 0)
    {
        throw RunError("cannot merge: " + std::to_string(missing) + " of " +
                       std::to_string(runs.size()) + " runs are not done, e.g. " + first +
                       "; run the campaign again to run only those");
    }
    for (const auto& f : c.merge.files)
    {
        MergeFile(c, runs, f);
    }
}

bool
MergedExist(const Campaign& c)
{
    for (const auto& f : c.merge.files)
    {
        const fs::path p(f);
        std::string stem = (p.parent_path() / p.stem()).string();
        std::replace(stem.begin(), stem.end(), '/', '-');
        if (!fs::is_regular_file(c.outputDir + "/merged/" + stem + ".csv"))
        {
            return false;
        }
    }
    return true;
}

// ---------------------------------------------------------------- local

/// Runs \p todo on \p jobs local cores with a progress line; returns the failed count.
std::size_t
RunLocally(const Campaign& c,
           const std::vector<Run>& runs,
           const std::vector<std::size_t>& todo,
           uint32_t jobs)
{
    using Clock_t = std::chrono::steady_clock;
    const auto t0 = Clock_t::now();
    std::map<pid_t, std::pair<std::size_t, Clock_t::time_point>> running;
    std::size_t next = 0;
    std::size_t finished = 0;
    std::vector<std::string> failed;
    const bool tty = isatty(STDERR_FILENO);
    auto progress = [&]() {
        const double elapsed = std::chrono::duration<double>(Clock_t::now() - t0).count();
        std::ostringstream line;
        line << "[" << c.name << "] " << finished << "/" << todo.size() << " runs done";
        if (!failed.empty())
        {
            line << " (" << failed.size() << " failed)";
        }
        line << ", " << running.size() << " running, elapsed " << Clock(elapsed) << ", ETA ";
        if (finished == 0)
        {
            line << "--";
        }
        else
        {
            line << Clock(elapsed / static_cast<double>(finished) *
                          static_cast<double>(todo.size() - finished));
        }
        if (tty)
        {
            std::cerr << "\r" << line.str() << "\033[K" << std::flush;
        }
        else
        {
            std::cerr << line.str() << std::endl;
        }
    };
    std::size_t reported = 0;
    while (finished < todo.size())
    {
        while (running.size() < jobs && next < todo.size())
        {
            const Run& r = runs[todo[next]];
            PrepareRun(c, r);
            running[SpawnRun(r.dir)] = {todo[next], Clock_t::now()};
            ++next;
        }
        if (reported < finished)
        {
            progress(); // after the freed core got its next run
            reported = finished;
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            throw RunError(std::string("waitpid: ") + std::strerror(errno));
        }
        const auto it = running.find(pid);
        if (it == running.end())
        {
            continue; // gnuplot or another child of ours
        }
        const Run& r = runs[it->second.first];
        FinishRun(r.dir,
                  status,
                  std::chrono::duration<double>(Clock_t::now() - it->second.second).count());
        running.erase(it);
        ++finished;
        const std::string why = WhyNotDone(c, r);
        if (!why.empty())
        {
            failed.push_back(r.dir + " (" + why + ")");
        }
    }
    progress();
    if (tty)
    {
        std::cerr << std::endl;
    }
    const double elapsed = std::chrono::duration<double>(Clock_t::now() - t0).count();
    std::cout << "ran " << todo.size() << " runs in " << Clock(elapsed) << " on " << jobs << " core"
              << (jobs == 1 ? "" : "s") << ", " << failed.size() << " failed" << std::endl;
    for (std::size_t i = 0; i < failed.size() && i < 10; ++i)
    {
        std::cerr << "failed: " << failed[i] << ": see its stderr.txt" << std::endl;
    }
    return failed.size();
}

// ---------------------------------------------------------------- Slurm

/// Runs a command, returns its stdout; throws with its output if it fails.
std::string
Capture(const std::string& command)
{
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p)
    {
        throw RunError("cannot run " + command);
    }
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof(buf), p))
    {
        out += buf;
    }
    const int status = pclose(p);
    if (status != 0)
    {
        throw RunError(command + " failed: " + out);
    }
    return out;
}

/**
 * Take <outputDir>/.lock (flock, held until this process ends) so that a second
 * invocation on the same campaign folder, while this one runs or submits, is refused
 * instead of starting the same runs again in the same folders.
 */
void
LockCampaign(const Campaign& c)
{
    std::error_code ec;
    fs::create_directories(c.outputDir, ec);
    const std::string path = c.outputDir + "/.lock";
    const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
    {
        throw RunError("cannot open " + path + ": " + std::strerror(errno));
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
    {
        throw RunError("another edge-llm-campaign is running this campaign in " + c.outputDir +
                       " (" + path +
                       " is locked): wait for it to end, or stop it, before running it again");
    }
    // fd stays open: the lock goes with this process.
}

/// Job ids this campaign submitted that Slurm still lists (squeue), if squeue exists.
std::vector<std::string>
ActiveJobs(const Campaign& c)
{
    std::ifstream in(c.outputDir + "/slurm/jobs");
    std::vector<std::string> ids;
    std::string kind;
    std::string id;
    while (in >> kind >> id)
    {
        ids.push_back(id);
    }
    if (ids.empty() || std::system("command -v squeue >/dev/null 2>&1") != 0)
    {
        return {};
    }
    std::string listed;
    try
    {
        listed = Capture("squeue -h -o %A -j " + Join(ids, ","));
    }
    catch (const RunError&)
    {
        return {}; // squeue refuses ids it has forgotten: none is active
    }
    std::vector<std::string> active;
    std::istringstream s(listed);
    std::string line;
    while (std::getline(s, line))
    {
        if (!line.empty() && std::find(active.begin(), active.end(), line) == active.end())
        {
            active.push_back(line);
        }
    }
    return active;
}

std::string
SbatchHeader(const Campaign& c, const std::string& jobName, const std::string& time)
{
    std::ostringstream s;
    s << "#!/bin/bash\n";
    s << "#SBATCH --job-name=" << jobName << "\n";
    s << "#SBATCH --chdir=" << fs::current_path().string() << "\n";
    s << "#SBATCH --time=" << time << "\n";
    s << "#SBATCH --ntasks=1\n";
    s << "#SBATCH --cpus-per-task=" << c.slurm.cpusPerTask << "\n";
    if (!c.slurm.partition.empty())
    {
        s << "#SBATCH --partition=" << c.slurm.partition << "\n";
    }
    if (!c.slurm.mem.empty())
    {
        s << "#SBATCH --mem=" << c.slurm.mem << "\n";
    }
    if (!c.slurm.account.empty())
    {
        s << "#SBATCH --account=" << c.slurm.account << "\n";
    }
    if (!c.slurm.qos.empty())
    {
        s << "#SBATCH --qos=" << c.slurm.qos << "\n";
    }
    for (const auto& e : c.slurm.extra)
    {
        s << "#SBATCH " << e << "\n";
    }
    return s.str();
}

/// Submits (or, with \p dryRun, prints) the array job(s) and the merge job.
void
SubmitSlurm(const Campaign& c,
            const std::vector<Run>& runs,
            const std::vector<std::size_t>& todo,
            bool dryRun)
{
    // #SBATCH lines are split at blanks by sbatch: a folder with a blank or a quote would be
    // cut short there, and the runs' logs would land elsewhere.
    for (const auto& [what, path] :
         {std::pair<std::string, std::string>{"--outputDir", c.outputDir},
          {"the working folder", fs::current_path().string()}})
    {
        if (path.find_first_of(" \t'\"") != std::string::npos)
        {
            throw InputError("--slurm: " + what + " '" + path +
                             "' holds a blank or a quote, which #SBATCH lines cannot carry; "
                             "use a path without them");
        }
    }
    // The submission's folder: slurm/submit-N (N = 1 + the submissions before it).
    uint32_t n = 1;
    while (fs::exists(c.outputDir + "/slurm/submit-" + std::to_string(n)))
    {
        ++n;
    }
    const std::string sub = c.outputDir + "/slurm/submit-" + std::to_string(n);
    const std::string self = (SelfDirectory() / "edge-llm-campaign").string();
    std::vector<std::string> scripts;
    for (std::size_t offset = 0; offset < todo.size(); offset += c.slurm.maxArraySize)
    {
        const std::size_t count = std::min<std::size_t>(c.slurm.maxArraySize, todo.size() - offset);
        std::ostringstream s;
        s << SbatchHeader(c, c.name, c.slurm.time);
        s << "#SBATCH --array=0-" << count - 1;
        if (c.slurm.maxParallel > 0)
        {
            s << "%" << c.slurm.maxParallel;
        }
        s << "\n#SBATCH --output=" << sub << "/logs/run-%A_%a.out\n";
        s << "# Array task i runs line " << offset << " + i + 1 of the run list (one run "
          << "folder per line; its run.json holds the exact command).\n";
        s << "exec " << ShellQuote(self) << " --task=$((SLURM_ARRAY_TASK_ID + " << offset
          << ")) --runList=" << ShellQuote(sub + "/runs.txt") << "\n";
        scripts.push_back(s.str());
    }
    std::ostringstream merge;
    merge << SbatchHeader(c, c.name + "-merge", c.slurm.mergeTime);
    merge << "#SBATCH --output=" << sub << "/logs/merge-%j.out\n";
    merge << "# Submitted with --dependency=afterany:<the array job ids>: merges once every "
             "run ended.\n";
    merge << "exec " << ShellQuote(self) << " " << ShellQuote(c.file)
          << " --outputDir=" << ShellQuote(c.outputDir) << " --merge\n";

    if (dryRun)
    {
        for (std::size_t i = 0; i < scripts.size(); ++i)
        {
            std::cout << "# ---- " << sub << "/array-" << i + 1 << ".sbatch (sbatch --parsable)\n"
                      << scripts[i];
        }
        std::cout << "# ---- " << sub
                  << "/merge.sbatch (sbatch --parsable --dependency=afterany:<array job ids>)\n"
                  << merge.str();
        std::cout << "dry run: nothing written, nothing submitted" << std::endl;
        return;
    }
    std::error_code ec;
    fs::create_directories(sub + "/logs", ec);
    std::ostringstream list;
    for (std::size_t i : todo)
    {
        PrepareRun(c, runs[i]);
        list << runs[i].dir << "\n";
    }
    if (ec || !WriteText(sub + "/runs.txt", list.str()))
    {
        throw RunError("cannot write " + sub + "/runs.txt");
    }
    std::vector<std::string> ids;
    std::ofstream jobs(c.outputDir + "/slurm/jobs", std::ios::app);
    for (std::size_t i = 0; i < scripts.size(); ++i)
    {
        const std::string path = sub + "/array-" + std::to_string(i + 1) + ".sbatch";
        if (!WriteText(path, scripts[i]))
        {
            throw RunError("cannot write " + path);
        }
        std::string id = Capture("sbatch --parsable " + ShellQuote(path));
        id = id.substr(0, id.find_first_of(";\n"));
        ids.push_back(id);
        jobs << "array " << id << std::endl;
    }
    const std::string mergePath = sub + "/merge.sbatch";
    if (!WriteText(mergePath, merge.str()))
    {
        throw RunError("cannot write " + mergePath);
    }
    std::string mergeId = Capture("sbatch --parsable --dependency=afterany:" + Join(ids, ":") +
                                  " " + ShellQuote(mergePath));
    mergeId = mergeId.substr(0, mergeId.find_first_of(";\n"));
    jobs << "merge " << mergeId << std::endl;
    std::cout << "submitted array job" << (ids.size() > 1 ? "s " : " ") << Join(ids, ", ") << " ("
              << todo.size() << " tasks, one per run; run list " << sub
              << "/runs.txt) and merge job " << mergeId << " (afterany:" << Join(ids, ":")
              << "); the merged CSV and PNGs will be in " << c.outputDir << "/merged/" << std::endl;
}

/// --task: the run of line \p task (0-based) of \p runList; returns its exit code.
int
RunTask(uint64_t task, const std::string& runList)
{
    std::ifstream in(runList);
    if (!in)
    {
        throw InputError("--runList: cannot open '" + runList + "'");
    }
    std::string dir;
    uint64_t line = 0;
    while (std::getline(in, dir) && line < task)
    {
        ++line;
    }
    if (line != task || dir.empty())
    {
        throw InputError("--task=" + std::to_string(task) + ": " + runList + " has only " +
                         std::to_string(line) + " runs");
    }
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = SpawnRun(dir);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
    {
        if (errno != EINTR)
        {
            throw RunError(std::string("waitpid: ") + std::strerror(errno));
        }
    }
    FinishRun(dir,
              status,
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::cout << dir << ": " << ReadFile(dir + "/status");
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

// ---------------------------------------------------------------- command line

const char* const USAGE =
    "usage: edge-llm-campaign CAMPAIGN.json [--jobs N] [--outputDir DIR]\n"
    "       edge-llm-campaign CAMPAIGN.json --slurm [--dry-run] [--outputDir DIR]\n"
    "       edge-llm-campaign CAMPAIGN.json --merge [--outputDir DIR]\n"
    "       edge-llm-campaign CAMPAIGN.json --dry-run          (print the runs to do)\n"
    "       edge-llm-campaign --task=I --runList=FILE          (one run: a Slurm array task)\n"
    "Runs a parameter sweep of one of the module's programs on this machine's cores or as\n"
    "Slurm job arrays, resumable, and merges each run's CSV files: mean and Student-t 95 %\n"
    "CI per point and scheme, one CSV and one PNG per metric (doc/edge-llm-user.rst, \"Sweeps\n"
    "and clusters\").\n"
    "  --jobs N       local runs at once (default: the machine's cores)\n"
    "  --slurm        submit one sbatch --array job (a task per run to do) and a merge job\n"
    "  --dry-run      print the batch scripts (with --slurm) or the runs' commands; do nothing\n"
    "  --merge        merge the finished runs only (what the Slurm merge job runs)\n"
    "  --outputDir D  instead of the campaign's \"outputDir\"\n";

struct Arguments
{
    std::string campaign;
    uint32_t jobs{0};
    bool slurm{false};
    bool dryRun{false};
    bool merge{false};
    std::string outputDir;
    int64_t task{-1};
    std::string runList;
};

Arguments
ParseArguments(int argc, char* argv[])
{
    Arguments a;
    for (int i = 1; i < argc; ++i)
    {
        std::string arg = argv[i];
        if (arg.rfind("--", 0) != 0)
        {
            if (!a.campaign.empty())
            {
                throw InputError("'" + arg + "': one campaign file only (already: " + a.campaign +
                                 ")");
            }
            a.campaign = arg;
            continue;
        }
        std::string name = arg.substr(2);
        std::string value;
        bool hasValue = false;
        if (name.find('=') != std::string::npos)
        {
            value = name.substr(name.find('=') + 1);
            name = name.substr(0, name.find('='));
            hasValue = true;
        }
        auto need = [&]() {
            if (!hasValue)
            {
                if (i + 1 >= argc)
                {
                    throw InputError("--" + name + ": needs a value");
                }
                value = argv[++i];
            }
            return value;
        };
        auto flag = [&]() {
            if (hasValue && value != "1" && value != "true")
            {
                if (value == "0" || value == "false")
                {
                    return false;
                }
                throw InputError("--" + name + ": must be true or false, got '" + value + "'");
            }
            return true;
        };
        uint64_t u = 0;
        if (name == "help" || name == "PrintHelp")
        {
            std::cout << USAGE;
            std::exit(0);
        }
        else if (name == "jobs")
        {
            if (!EdgeLlmParseUnsigned(need(), u) || u < 1 || u > 4096)
            {
                throw InputError("--jobs: must be an integer in [1, 4096], got '" + value + "'");
            }
            a.jobs = static_cast<uint32_t>(u);
        }
        else if (name == "slurm")
        {
            a.slurm = flag();
        }
        else if (name == "dry-run" || name == "dryRun")
        {
            a.dryRun = flag();
        }
        else if (name == "merge")
        {
            a.merge = flag();
        }
        else if (name == "outputDir")
        {
            a.outputDir = need();
            if (a.outputDir.empty())
            {
                throw InputError("--outputDir: must not be empty");
            }
        }
        else if (name == "task")
        {
            if (!EdgeLlmParseUnsigned(need(), u) || u > 100000000)
            {
                throw InputError("--task: must be an integer in [0, 100000000], got '" + value +
                                 "'");
            }
            a.task = static_cast<int64_t>(u);
        }
        else if (name == "runList")
        {
            a.runList = need();
        }
        else
        {
            throw InputError("--" + name +
                             ": unknown option; valid: --jobs, --slurm, --dry-run, "
                             "--merge, --outputDir, --task, --runList, --help");
        }
    }
    if ((a.task >= 0) != !a.runList.empty())
    {
        throw InputError("--task and --runList go together (a Slurm array task)");
    }
    if (a.task < 0 && a.campaign.empty())
    {
        throw InputError("no campaign file given\n" + std::string(USAGE));
    }
    if (a.merge && (a.slurm || a.dryRun || a.jobs))
    {
        throw InputError("--merge runs nothing: no --slurm, --dry-run or --jobs with it");
    }
    if (a.slurm && a.jobs)
    {
        throw InputError("--jobs is for local runs; Slurm takes its resources from the "
                         "campaign's \"slurm\" object");
    }
    return a;
}

} // namespace

int
main(int argc, char* argv[])
{
    try
    {
        const Arguments a = ParseArguments(argc, argv);
        if (a.task >= 0)
        {
            return RunTask(static_cast<uint64_t>(a.task), a.runList);
        }
        const Campaign c = LoadCampaign(a.campaign, a.outputDir);
        const std::vector<Run> runs = MakeRuns(c);
        if (a.merge)
        {
            Merge(c, runs);
            return 0;
        }
        if (!a.dryRun)
        {
            const std::vector<std::string> active = ActiveJobs(c);
            if (!active.empty())
            {
                throw RunError("job(s) " + Join(active, ", ") +
                               " of this campaign are still "
                               "queued or running (squeue): wait for them, or scancel them, "
                               "before running it again");
            }
            LockCampaign(c);
            WritePoints(c);
        }
        const std::vector<std::size_t> todo = RunsToDo(c, runs);
        const std::size_t points = PointCount(c);
        std::cout << c.name << ": " << runs.size() << " runs (" << points << " point"
                  << (points == 1 ? "" : "s") << " x " << c.runs << " runs) of "
                  << fs::path(c.program).filename().string() << " in " << c.outputDir << std::endl;
        if (todo.empty())
        {
            if (MergedExist(c))
            {
                std::cout << "all " << runs.size() << " runs done; nothing to do" << std::endl;
                return 0;
            }
            std::cout << "all " << runs.size() << " runs done; "
                      << (a.dryRun ? "would merge" : "merging") << std::endl;
            if (!a.dryRun)
            {
                Merge(c, runs);
            }
            return 0;
        }
        const std::size_t done = runs.size() - todo.size();
        if (a.slurm)
        {
            std::cout << done << " of " << runs.size() << " runs already done; "
                      << (a.dryRun ? "would submit " : "submitting ") << todo.size() << std::endl;
            SubmitSlurm(c, runs, todo, a.dryRun);
            return 0;
        }
        const long cores = sysconf(_SC_NPROCESSORS_ONLN);
        const uint32_t jobs =
            std::min<uint32_t>(a.jobs ? a.jobs : static_cast<uint32_t>(std::max(1L, cores)),
                               static_cast<uint32_t>(todo.size()));
        if (a.dryRun)
        {
            std::cout << done << " of " << runs.size() << " runs already done; would run "
                      << todo.size() << ":" << std::endl;
            for (std::size_t i : todo)
            {
                std::vector<std::string> quoted;
                for (const auto& s : runs[i].argv)
                {
                    quoted.push_back(ShellQuote(s));
                }
                std::cout << Join(quoted, " ") << std::endl;
            }
            return 0;
        }
        std::cout << done << " of " << runs.size() << " runs already done; running " << todo.size()
                  << " on " << jobs << " core" << (jobs == 1 ? "" : "s") << std::endl;
        if (RunLocally(c, runs, todo, jobs) > 0)
        {
            std::cerr << "error: not merged: some runs failed; run the campaign again to rerun "
                         "only those"
                      << std::endl;
            return 1;
        }
        Merge(c, runs);
        return 0;
    }
    catch (const InputError& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 2;
    }
    catch (const std::exception& e)
    {
        std::cerr << "error: " << e.what() << std::endl;
        return 1;
    }
}
