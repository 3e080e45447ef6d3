# The remat Pareto plot reads what suites/remat writes (measured_peak_bytes, predicted_peak_bytes;
# the fixture is real `tandem run` output), draws MB against ms, numbers only the front on the
# plot (no two labels overlap) and lists every policy in the table beside it.
import copy

import matplotlib.text
from conftest import FIXTURES

from reports import records
from reports.plots import remat, style


def capture(monkeypatch, recs, tmp_path):
    figs = []
    real = style.save

    def keep(fig, *a, **k):
        fig.canvas.draw()
        figs.append((fig, [ax for ax in fig.axes]))
        return real(fig, *a, **k)

    monkeypatch.setattr(style, "save", keep)
    plots = remat.plot(recs, tmp_path)
    return plots, figs


def test_reads_measured_peak_and_labels_the_front_only(monkeypatch, tmp_path):
    recs = records.load(FIXTURES / "remat.json")
    assert all("measured_peak_bytes" in records.metrics(r) for r in recs)
    plots, figs = capture(monkeypatch, recs, tmp_path)
    assert [p.file for p in plots] == ["remat_pareto_attention_B_2_T_4_D_8.png", "remat_pareto_mlp_L_4_B_4_D_8.png"]
    for (fig, (ax, tab)), config in zip(figs, sorted(remat.points_by_configuration(recs))):
        pts = remat.points_by_configuration(recs)[config]
        assert ax.get_xlabel() == "time per step (ms)" and ax.get_ylabel() == "peak memory (MB)"
        labels = [t for t in ax.texts if isinstance(t, matplotlib.text.Annotation)]
        assert len(labels) == len(remat.pareto(pts)) >= 1
        boxes = [t.get_window_extent() for t in labels]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:])
        cells = [c.get_text().get_text() for c in tab.tables[0].get_celld().values()]
        assert all(remat.short(p[2]) in cells for p in pts)  # every policy is in the table
        ys = ax.collections[0].get_offsets()[:, 1]
        assert max(ys) == max(p[1] for p in pts) / 1e6  # MB, from measured_peak_bytes


def test_renamed_metric_draws_nothing(monkeypatch, tmp_path):
    recs = copy.deepcopy(records.load(FIXTURES / "remat.json"))
    for r in recs:
        for m in r["metrics"]:
            m["name"] = m["name"].replace("measured_peak_bytes", "peak_measured")
    assert remat.plot(recs, tmp_path) == []  # and the report test on real records then fails


def test_pareto_front():
    pts = [(1.0, 10, "a"), (2.0, 5, "b"), (3.0, 7, "c"), (4.0, 1, "d")]
    assert [p[2] for p in remat.pareto(pts)] == ["a", "b", "d"]


def test_failed_policy_is_listed_not_dropped(monkeypatch, tmp_path):
    recs = copy.deepcopy(records.load(FIXTURES / "remat.json"))
    victim = recs[0]
    victim["verdict"] = "fail"
    policy = str(victim["params"]["policy"])
    plots, figs = capture(monkeypatch, recs, tmp_path)
    config = remat.configuration(victim)
    fig, (ax, tab) = figs[sorted(set(remat.points_by_configuration(recs)) | {config}).index(config)]
    cells = [c.get_text().get_text() for c in tab.tables[0].get_celld().values()]
    assert remat.short(policy) in cells and "FAIL" in cells  # its row, marked
    assert "failed" in tab.get_title() and remat.short(policy, 30) in tab.get_title()
    only_failed = [dict(r, verdict="error") for r in recs if remat.configuration(r) == config]
    assert len(remat.plot(only_failed, tmp_path)) == 1  # a figure even when every policy failed
