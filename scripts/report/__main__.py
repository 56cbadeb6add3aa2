"""reduce-stages' reporting program: results CSVs (read by column name) into tables, charts and
README blocks. Python 3 and its standard library only.
usage: python3 scripts/report COMMAND [ARGS...]; python3 scripts/report help lists the commands."""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# COMMAND: (module, what it does). The module's COMMAND_cli(argv), or else its cli(argv), runs it and
# returns the exit code; argv[0] is the command's name.
COMMANDS = {
    "table": ("tables", "a Markdown table of a results CSV (all, best or one stage's)"),
    "cited": ("cited", "an article's own figures beside the run's"),
    "times": ("times", "the times of some kernels at every N"),
    "targets": ("targets", "a stage's targets on every GPU's results"),
    "ratios": ("ratios", "x CUB and the speed of light at every N"),
    "accuracy": ("accuracy", "the accuracy lab's tables"),
    "plot-accuracy": ("accuracy", "the accuracy lab's chart"),
    "limits": ("limits", "what limits each N, from Nsight Compute's counters"),
    "ncu": ("ncu", "the metric values of an Nsight Compute CSV"),
    "tree": ("tree", "a tree record drawn (terminal, gnuplot data) or counted"),
    "plot": ("charts", "the charts of a results CSV, drawn with gnuplot"),
    "charts": ("charts", "the charts a results CSV yields, one a line"),
    "sass": ("sass", "make stage-NN sass's summary line per kernel"),
    "readmes": ("readmes", "every README's measured blocks from the committed results"),
    "tree-blocks": ("readmes", "every stage README's tree block from the committed records"),
    "fill": ("readmes", "one page's generated block from a file"),
    "claims": ("claims", "the stages' claims about measured results, checked on every GPU's"),
}

def main(argv):
    if len(argv) < 1 or argv[0] in ("help", "-h", "--help"):
        print(__doc__.strip())
        for name, (_, what) in COMMANDS.items():
            print(f"  {name:14} {what}")
        return 0 if argv else 2
    name = argv[0]
    if name not in COMMANDS:
        print(f"error: unknown command '{name}' (python3 scripts/report help lists them)", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    return getattr(module, f"{name.replace('-', '_')}_cli", module.cli)([name] + argv[1:])

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
