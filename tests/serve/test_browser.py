"""A scripted participant in a real browser (Playwright driving the system Chromium): the
start form, keys, clicks on cells and the phase buttons, for a planning task played to
success, an MFP and a CD task; the transcripts replay exactly. Skipped only when
/usr/bin/chromium (the Debian package) is missing."""

from __future__ import annotations

from pathlib import Path

import pytest
from serve_helpers import LiveServer

from llm_eval.cli import main
from llm_eval.runstore import STORE_FILE, RunStore
from llm_eval.tasks.store import load_task

CHROMIUM = Path("/usr/bin/chromium")
KEYS = {"left": "ArrowLeft", "right": "ArrowRight", "up": "ArrowUp", "down": "ArrowDown",
        "noop": " "}

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="no system Chromium at /usr/bin/chromium")


@pytest.fixture(scope="module")
def browser():
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield browser
        browser.close()


class Person:
    """Drives the page as a person would, waiting after each action for the page to show
    the episode's next step (``data-seq`` on ``main``)."""

    def __init__(self, page, url: str) -> None:
        self.page = page
        self.url = url
        self.seq = 0

    def start(self, name: str, world: str, family: str, protocol: str = "worldtest") -> None:
        self.page.goto(self.url + "/")
        self.page.fill("input[name=participant]", name)
        self.page.select_option("select[name=task]", f"{world}/{family}")
        self.page.select_option("select[name=protocol]", protocol)
        self.page.click("#start")
        self.seq = 0
        self._settled()
        assert self.page.inner_text("#phase") == "Explore the world"

    def _settled(self) -> None:
        self.page.wait_for_selector(f"main#play[data-seq='{self.seq}']", timeout=15000)

    def did(self) -> None:
        self.seq += 1
        self._settled()

    def key(self, action: str) -> None:
        self.page.keyboard.press(KEYS[action])
        self.did()

    def click_cell(self, x: int, y: int) -> None:
        grid = self.page.locator("#grid")
        cell = int(grid.get_attribute("data-cell"))
        line = int(grid.get_attribute("data-line"))
        centre = lambda i: line + i * (cell + line) + cell // 2   # noqa: E731
        grid.click(position={"x": centre(x), "y": centre(y)})
        self.did()

    def button(self, selector: str) -> None:
        self.page.click(selector)
        self.did()

    def play(self, actions) -> None:
        for action in actions:
            if action.startswith("click "):
                _, x, y = action.split()
                self.click_cell(int(x), int(y))
            else:
                self.key(action)

    @property
    def phase(self) -> str:
        return self.page.get_attribute("main#play", "data-phase")


def test_a_person_plays_planning_mfp_and_cd_in_the_browser(browser, tmp_path, capsys):
    run_dir = tmp_path / "run"
    server = LiveServer(run_dir)
    try:
        page = browser.new_page(viewport={"width": 1280, "height": 1000})
        person = Person(page, server.url)

        planning = load_task("garden", "planning")
        person.start("pat", "garden", "planning")
        person.play(["left", "click 3 3", "noop"])
        person.button("#act-reset")
        person.button("#act-go-to-test")
        assert person.phase == "planning" and page.is_visible("#goal")
        person.play(planning.hidden.witness)
        assert person.phase == "done" and page.is_visible("#done-box")

        mfp = load_task("gravity", "mfp")
        person.start("pat", "gravity", "mfp")
        person.key("up")
        person.button("#act-go-to-test")
        assert person.phase == "mfp" and page.locator(".option").count() == 6
        person.button("#last-frame")
        person.button(f"#option-{mfp.hidden.answer}")
        assert person.phase == "done"

        person.start("pat", "gravity", "cd")
        person.button("#act-go-to-test")
        for _ in range(3):
            person.key("noop")
        person.button("#act-declare")
        assert person.phase == "cd" and page.is_visible("#submit-frame")
        person.button("#prev-frame")
        person.button("#submit-frame")
        assert person.phase == "done"
        page.close()
    finally:
        server.stop()
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        rows = {r.settings["family"]: r for run in store.runs() for r in store.jobs(run["id"])}
    assert {f: r.status for f, r in rows.items()} == dict.fromkeys(("planning", "mfp", "cd"),
                                                                    "done")
    assert rows["planning"].score == 1.0 and rows["mfp"].score == 1.0
    assert main(["replay", str(run_dir)]) == 0
    assert "reproduced 3/3" in capsys.readouterr().out


def _actions(run_dir):
    from llm_eval.transcripts import TranscriptStream

    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        [row] = [r for run in store.runs() for r in store.jobs(run["id"])]
    return [e.action for e in TranscriptStream(run_dir / row.transcript) if e.type == "action"]


def test_lost_answers_and_real_time_lose_no_action_and_apply_none_twice(browser, tmp_path):
    """The first two actions reach the server but their answers are lost (the page sends
    them again with the same number); then real time ticks noops while nobody acts."""
    run_dir = tmp_path / "run"
    server = LiveServer(run_dir)
    try:
        page = browser.new_page()
        person = Person(page, server.url)
        person.start("lou", "gravity", "planning")
        lost = []

        def lose_answer(route):
            if len(lost) < 2:
                lost.append(route.request.post_data)
                route.fetch()          # the server gets it and answers ...
                route.abort()          # ... but the page never hears
            else:
                route.continue_()

        page.route("**/action", lose_answer)
        person.key("left")
        person.key("up")
        assert len(lost) == 2
        page.unroute("**/action")
        page.fill("#tick-ms", "100")
        page.check("#realtime")
        for _ in range(150):      # the page's CSP forbids evaluated predicates: poll
            if int(page.get_attribute("main#play", "data-seq")) >= 5:
                break
            page.wait_for_timeout(100)
        page.uncheck("#realtime")
        page.close()
    finally:
        server.stop()
    actions = _actions(run_dir)
    assert actions[:2] == ["left", "up"] and len(actions) >= 5
    assert set(actions[2:]) == {"noop"}


def test_the_autumnbench_protocol_is_played_with_its_own_strings(browser, tmp_path):
    run_dir = tmp_path / "run"
    server = LiveServer(run_dir)
    try:
        page = browser.new_page()
        person = Person(page, server.url)
        person.start("ada", "gravity", "mfp", protocol="autumnbench")
        assert page.is_visible("#harness-text")
        person.key("left")
        person.button("button[data-action='go-to-test']")
        while not page.is_visible("button[data-action='choose_option_0']"):
            person.button("button[data-action='step']")
        person.button("button[data-action='choose_option_0']")
        assert person.phase == "done"
        page.close()
    finally:
        server.stop()
    with RunStore(run_dir / STORE_FILE, readonly=True) as store:
        [row] = [r for run in store.runs() for r in store.jobs(run["id"])]
    assert row.status == "done" and row.settings["protocol"] == "autumnbench"


def test_a_study_participant_consents_and_plays_through_their_link(browser, tmp_path):
    from llm_eval.serve.study import Study, StudySpec

    spec = StudySpec.model_validate({
        "name": "pilot", "participants": 2, "tasks_per_participant": 2, "seed": 3,
        "tasks": ["gravity/planning", "gravity/mfp"], "consent": "Your actions are recorded."})
    run_dir = tmp_path / "run"
    link = "/p/" + Study(spec, run_dir).state["participants"][0]["token"]
    server = LiveServer(run_dir, study=spec)
    try:
        page = browser.new_page()
        page.goto(server.url + link)
        assert "Your actions are recorded." in page.inner_text("main")
        page.click("#agree")
        for number in (1, 2):
            assert page.inner_text("h1") == f"Task {number} of 2"
            page.click("#next-task")
            person = Person(page, server.url)
            person._settled()
            person.button("#act-go-to-test")
            if person.phase == "planning":
                person.button("#act-quit")
            else:
                person.button("#option-0")
            assert person.phase == "done"
            page.click("#next-link")
        assert "finished every task" in page.inner_text("main")
        page.close()
    finally:
        server.stop()
