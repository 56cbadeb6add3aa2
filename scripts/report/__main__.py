"""reduce-stages' reporting program: results CSVs (read by column name) into tables, charts and README
blocks. Python 3 and its standard library only: python3 scripts/report COMMAND [ARGS...]."""
import argparse
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CSV, CHECK = ("csv", {}), ("--check", {"action": "store_true", "help": "change nothing; exit 1 where a page differs"})
# COMMAND: (module.function, what it does, its keyword arguments); it returns what to print, its exit code or both.
COMMANDS = {
    "targets": ("claims.targets", "a stage's targets (its claims.csv) on every GPU's results", [
        ("--stage", {"required": True, "help": "the stage, its folder's name"}),
        ("csvs", {"nargs": "+", "help": "every GPU's results CSV"})]),
    "plot-accuracy": ("charts.plot_accuracy", "the accuracy lab's chart", [CSV, ("png", {})]),
    "tree": ("tree.tree", "a tree record drawn (terminal, gnuplot data) or counted", [
        ("--mode", {"choices": ("ascii", "data", "counts"), "default": "ascii"}),
        ("--dir", {"dest": "folder", "default": ".", "help": "the folder of the .dat files (data mode)"}),
        ("record", {"help": "a tree record (build/<stage>/tree's CSV)"})]),
    "plot": ("charts.plot", "the charts of a results CSV, drawn with gnuplot", [
        CSV, ("outdir", {}), ("--dumb", {"action": "store_true", "help": "also print the bar charts"})]),
    "charts": ("charts.charts", "the charts a results CSV yields, one a line", [CSV]),
    "readmes": ("readmes.readmes", "every README's measured blocks from the committed results", [
        CHECK, CSV, ("img", {})]),
    "tree-blocks": ("readmes.tree_blocks", "every stage README's tree block from the committed records", [CHECK]),
    "fill": ("readmes.fill", "one page's generated block from a file", [
        CHECK, *((name, {}) for name in ("page", "tag", "block", "how"))]),
    "claims": ("claims.claims", "the stages' claims about measured results, checked on every GPU's", []),
}

def main(argv):
    parser = argparse.ArgumentParser(prog="python3 scripts/report", description=__doc__)
    commands = parser.add_subparsers(metavar="COMMAND", required=True)
    for name, (function, what, arguments) in COMMANDS.items():
        command = commands.add_parser(name, help=what, description=what)
        command.set_defaults(function=function)
        for argument, options in arguments:
            command.add_argument(argument, **options)
    args = vars(parser.parse_args(["--help"] if argv[:1] == ["help"] else argv))
    module, function = args.pop("function").split(".")
    got = getattr(importlib.import_module(module), function)(**args)
    out, status = got if isinstance(got, tuple) else (got, 0) if isinstance(got, str) else ("", got)
    sys.stdout.write(out)
    return status

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
