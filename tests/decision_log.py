"""Checks of the balancer's decision log, the "decisions" array that lu's and lu-sim's JSON reports
both generate from one table (lu/io/decision_record.cpp). Shared by lu_runner.py (every lu run with
a JSON report) and sim_balance_check.py (lu-sim, where the true speeds are known).

check_decisions(report, fail): the log holds exactly the steps of "balance_moves", in order, with
their moved columns; every entry has exactly the table's keys; the predicted ratios are ones a
decision can predict (imbalance and bottleneck ratio >= 1, the step's gain > 0, prices >= 0).
"""

KEYS = {
    "iteration", "moved_columns",
    "predicted_imbalance_before", "predicted_imbalance_after",
    "predicted_bottleneck_ratio_before", "predicted_bottleneck_ratio_after",
    "measured_imbalance_before", "measured_imbalance_after",
    "gain_s", "horizon", "price_s", "price_paid_s",
}
TINY = 1e-12


def steps_of(report):
    """{iteration: columns moved} from the report's balance_moves."""
    steps = {}
    for m in report["balance_moves"]:
        steps[m["iteration"]] = steps.get(m["iteration"], 0) + abs(m["columns"])
    return steps


def check_decisions(report, fail):
    log = report["decisions"]
    steps = steps_of(report)
    if [d["iteration"] for d in log] != sorted(steps):
        fail(f"the decision log's steps {[d['iteration'] for d in log]} are not balance_moves' {sorted(steps)}")
    for d in log:
        if set(d) != KEYS:
            fail(f"decision after iteration {d.get('iteration')}: keys {sorted(set(d) ^ KEYS)} differ from the table's")
        if d["moved_columns"] != steps[d["iteration"]]:
            fail(f"decision after iteration {d['iteration']}: {d['moved_columns']} columns, the moves say "
                 f"{steps[d['iteration']]}")
        for key in ("predicted_imbalance_before", "predicted_imbalance_after",
                    "predicted_bottleneck_ratio_before", "predicted_bottleneck_ratio_after"):
            if not d[key] >= 1.0 - TINY:
                fail(f"decision after iteration {d['iteration']}: {key} = {d[key]}, below 1")
        if not (d["gain_s"] > 0 and d["horizon"] > 0 and d["price_s"] >= 0 and d["price_paid_s"] >= 0):
            fail(f"decision after iteration {d['iteration']}: gain, horizon or prices out of range: {d}")
