"""The reporting program's plot command checked on a results CSV made up to exercise it (the tests of the
reporting program and of the stages with charts of their own use it)."""
import os
import sys

from tests import support


def chart_script_checks(case, label, csv_path, chart_name, tmpdir):
    """Three subtests of CASE, named after LABEL: plot on CSV_PATH without gnuplot says so and exits 4; plot
    on a file of another layout (the Makefile) exits 2; plot draws TMPDIR/<chart>-chart/CHART_NAME.png where
    gnuplot is installed (a skip with the reason elsewhere)."""
    out = os.path.join(tmpdir, f"{chart_name}-chart")
    with case.subTest(f"{label}: plot without gnuplot says so, exit 4"):
        case.expect(4, "gnuplot not found", [sys.executable, "scripts/report", "plot", csv_path, out],
                    env={"PATH": support.tools_path(case, ("bash", "python3"))})
    with case.subTest(f"{label}: plot on a CSV of another layout, exit 2"):
        case.expect(2, "not a results CSV", [sys.executable, "scripts/report", "plot", "Makefile", out])
    with case.subTest(f"{label}: plot draws {chart_name}.png"):
        if support.missing("gnuplot"):
            case.skipTest(support.missing("gnuplot"))
        case.expect(0, "", [sys.executable, "scripts/report", "plot", csv_path, out])
        case.assertTrue(support.is_png(os.path.join(out, f"{chart_name}.png")),
                        f"plot exited 0 and drew no PNG {chart_name}.png in {out}: "
                        f"{sorted(os.listdir(out)) if os.path.isdir(out) else 'no such folder'}")
