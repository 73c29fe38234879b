#!/usr/bin/env bash
# Builds doc/edge-llm.rst as a chapter of ns-3's model library, with the three files its
# toctree includes (doc/edge-llm-design.rst, -user.rst, -testing.rst, as ns-3's lte.rst
# includes lte-design.rst, lte-user.rst, lte-testing.rst), with ns-3's own Sphinx
# configuration (doc/models/source/conf.py, its html theme and replace.txt) and with
# warnings as errors (-W --keep-going, as ns-3's doc/models Makefile does).
#
#   bash scripts/check-doc.sh [NS3_DIR]
#
# NS3_DIR: an ns-3 source tree whose doc/models/source/conf.py to use (3.35 to 3.48 tried).
# Default: the ns-3 tree this module sits in (contrib/edge-llm), else the newest tree
# that scripts/test-in-tree.sh extracted in ${EDGE_LLM_CACHE:-~/.cache/edge-llm}, else
# a copy of the settings of ns-3's conf.py that bear on warnings (the script says
# which one it used).
#
# Formulas: ns-3's conf.py renders them with sphinx.ext.imgmath, which runs LaTeX and
# dvipng on each one, so a formula that does not compile is a warning. Without
# latex, dvipng and the LaTeX packages imgmath loads (Debian: texlive-latex-extra
# dvipng), or with EDGE_LLM_DOC_MATH=mathjax, the script renders with
# sphinx.ext.mathjax instead: every other check is the same, but the formulas' LaTeX
# is not compiled.
#
# Needs sphinx-build (Debian: python3-sphinx; scripts/setup.sh installs it). Works in
# a temporary folder: nothing in the ns-3 tree or in this clone is written.
# Exit status: 0 no warning; 1 warnings or errors (printed); 77 sphinx-build missing.
set -euo pipefail
cd "$(dirname "$0")/.."
module_dir=$(pwd)

if ! command -v sphinx-build >/dev/null; then
  echo "check-doc: sphinx-build not found (Debian: apt-get install python3-sphinx)" >&2
  exit 77
fi

# Where ns-3's Sphinx setup comes from.
ns3=""
if [ $# -ge 1 ]; then
  ns3=$1
  if [ ! -f "$ns3/doc/models/source/conf.py" ]; then
    echo "check-doc: error: $ns3/doc/models/source/conf.py not found (NS3_DIR must be an ns-3 source tree)" >&2
    exit 1
  fi
elif [ -f "$module_dir/../../doc/models/source/conf.py" ]; then
  ns3=$(cd "$module_dir/../.." && pwd)
else
  cache=${EDGE_LLM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/edge-llm}
  conf=$(find "$cache" -mindepth 6 -maxdepth 6 -path '*/ns-3.*/doc/models/source/conf.py' \
    2>/dev/null | sort -V -r | head -n 1 || true)
  if [ -n "$conf" ]; then
    ns3=$(cd "$(dirname "$conf")/../../.." && pwd)
  fi
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/edge-llm-doc.XXXXXX")
trap 'rm -rf "$work"' EXIT
# The same layout as ns-3's doc/: conf.py finds its theme at ../../ns3_html_theme.
src=$work/doc/models/source
mkdir -p "$src"
if [ -n "$ns3" ]; then
  echo "check-doc: ns-3's Sphinx setup from $ns3/doc/models/source/conf.py"
  cp "$ns3/doc/models/source/conf.py" "$ns3/doc/models/source/replace.txt" "$src/"
  # ns-3 <= 3.35 sets language = None, which Sphinx >= 5 rejects with a warning (read
  # before any -D override); later releases leave Sphinx's default, English.
  if grep -q '^language = None' "$src/conf.py"; then
    echo "check-doc: this conf.py sets language = None (Sphinx >= 5 warns): using \"en\""
    sed -i 's/^language = None/language = "en"/' "$src/conf.py"
  fi
  if [ -d "$ns3/doc/models/source/_static" ]; then
    cp -r "$ns3/doc/models/source/_static" "$src/"
  fi
  if [ -d "$ns3/doc/ns3_html_theme" ]; then
    cp -r "$ns3/doc/ns3_html_theme" "$work/doc/"
  fi
else
  echo "check-doc: no ns-3 source tree found: using a copy of the settings of ns-3's" \
    "doc/models/source/conf.py (pass NS3_DIR to use the real one)"
  cat >"$src/conf.py" <<'EOF'
# The settings of ns-3's doc/models/source/conf.py (3.37-3.48) that bear on warnings;
# the html theme is Sphinx's own.
extensions = ["sphinx.ext.imgmath"]
source_suffix = ".rst"
master_doc = "index"
project = "ns-3 project"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
pygments_style = "sphinx"
html_theme = "classic"
numfig = True
numref_format = {
    "figure": "Fig. {number}: %s",
    "table": "Table {number}: %s",
    "code-block": "Listing {number}: %s",
    "section": "Section {number}: %s",
}
EOF
  printf '.. |ns3| replace:: *ns-3*\n\n.. |ns2| replace:: *ns-2*\n' >"$src/replace.txt"
fi
mkdir -p "$src/_static"
# Every doc/*.rst: a file that the chapter's toctree leaves out is a Sphinx warning
# ("document isn't included in any toctree"), so none is forgotten.
cp "$module_dir"/doc/*.rst "$src/"
cat >"$src/index.rst" <<'EOF'
Model Library
=============

.. toctree::
   :maxdepth: 2

   edge-llm
EOF

# Math renderer: ns-3's imgmath when LaTeX can run it, else MathJax.
math=${EDGE_LLM_DOC_MATH:-imgmath}
if [ "$math" = imgmath ]; then
  for need in latex dvipng kpsewhich; do
    if ! command -v "$need" >/dev/null; then
      math=mathjax
    fi
  done
  if [ "$math" = imgmath ]; then
    for sty in amsmath amsthm amssymb amsfonts anyfontsize bm preview; do
      if [ -z "$(kpsewhich "$sty.sty" 2>/dev/null)" ]; then
        math=mathjax
      fi
    done
  fi
  if [ "$math" = mathjax ]; then
    echo "check-doc: LaTeX for sphinx.ext.imgmath is missing (Debian: texlive-latex-extra" \
      "dvipng): formulas rendered by MathJax, their LaTeX not compiled"
  fi
fi
options=(-W --keep-going -q -b html)
if [ "$math" = mathjax ]; then
  options+=(-D extensions=sphinx.ext.mathjax)
else
  echo "check-doc: formulas compiled by LaTeX (sphinx.ext.imgmath)"
fi

if sphinx-build "${options[@]}" "$src" "$work/html" >"$work/log" 2>&1; then
  echo "check-doc: doc/ ($(cd "$module_dir/doc" && echo *.rst)) builds without warnings"
else
  sed "s|$src/||" "$work/log" >&2
  echo "check-doc: doc/*.rst have Sphinx warnings or errors (above)" >&2
  exit 1
fi
