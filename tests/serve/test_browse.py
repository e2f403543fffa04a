"""The operator's live runs page: the report of the run directories as they are now, shown
only with the operator's token."""

from __future__ import annotations

from serve_helpers import Participant, serve_client

from llm_eval.cli import main
from llm_eval.serve.browse import RUNS_CSP
from llm_eval.tasks.store import load_task


def test_the_runs_page_is_the_operators_and_follows_the_runs(tmp_path):
    models = tmp_path / "models"
    assert main(["run", "--model", "random", "--worlds", "gravity", "--families", "planning",
                 "--interaction-steps", "5", "-o", str(models)]) == 0
    with serve_client(tmp_path / "run", browse=[str(models)]) as client:
        operator = client.app.state.operator
        assert client.get("/runs/not-the-token").status_code == 404
        page = client.get(f"/runs/{operator}")
        assert page.status_code == 200 and "random" in page.text
        assert "human/" not in page.text
        assert page.headers["content-security-policy"] == RUNS_CSP
        assert "<script" not in page.text
        p = Participant(client, "vera")
        p.start("gravity", "planning")
        p.play(["go-to-test", *load_task("gravity", "planning").hidden.witness])
        assert p.view["done"]
        again = client.get(f"/runs/{operator}").text
        assert "human/vera" in again and "random" in again
        assert client.get(f"/runs/{p.csrf}").status_code == 404   # a participant's token
