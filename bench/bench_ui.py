"""Desktop window responsiveness: streaming a long reply, opening a long chat, cold start.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_ui.py [--json] [--quick]

1. Update cost: a synthetic 2,000-token reply (paragraphs, lists, code blocks) is fed to the real
   ChatView in the pieces the generation worker emits (coalesced every 30 ms at 200 tokens/s);
   each update is timed with the layout and painting it causes. Reported: median cost over the
   first and the last tenth of the reply, and their ratio (target <= 2).
2. Streaming: the same reply streamed through the real main window's whole path (generation
   worker thread, coalescing, saving to SQLite every 0.5 s, signals, rendering) at 100 and 400
   tokens/s, with a 5 ms heartbeat timer on the UI thread; reported: the longest event-loop stall
   (target <= 50 ms). The engine is replaced by a token source that sleeps between tokens: the
   window, not the model, is what is measured.
3. Opening a 200-message conversation: the longest stall while its widgets are built.
   And a 500-message conversation whose every reply has three versions: opened, scrolled to
   its first message (older messages built as they are asked for), a version flipped half-way
   up; the longest stall of each (target <= 50 ms).
4. Cold start: ``python -m app --exit-after-paint`` in a fresh process, process start to the first
   painted window (target <= 1.5 s); median and worst of several runs, after one warm-up run;
   again with the 500-message conversation of versions to reopen (target <= 1.0 s).
5. Heavy updates: a reply with inline and display TeX math, and a 200-line code block, each fed to
   the real ChatView two tokens per update; reported: the worst update (with its layout and
   painting) of each round, median over rounds (target <= 50 ms). The formulas differ from round
   to round, so each round draws its images anew; the first round, which also imports the math
   renderer, is reported apart.

``--only NAME[,NAME...]`` runs some of the cases (update_cost, update_cost_8k, streaming,
open_long_chat, versioned_chat, cold_start, cold_start_versioned_chat, math_reply, code_block).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TOKENS = 2000
EMIT_TOKENS = 6  # 200 tokens/s coalesced every 30 ms

PARAGRAPH = (
    "The keeper of the **lighthouse** climbed the stairs each evening, counting the steps "
    "and listening to the `wind` against the glass. She kept a [log](https://example.com) of "
    "every ship that passed, its flag, its heading and the hour, and wrote what the sea was "
    "doing in a small careful hand.\n\n"
)
CODE = (
    "```python\n"
    "def sweep(angle: float, speed: float = 0.5) -> float:\n"
    '    """Advance the beam; wrap at a full turn."""\n'
    "    angle = (angle + speed * 360) % 360\n"
    "    return round(angle, 2)\n"
    "```\n\n"
)
LIST = "".join(f"{i}. Check lamp {i}, trim the wick, log it\n" for i in range(1, 7)) + "\n"


def synthetic_tokens(n: int = TOKENS) -> list[str]:
    """About ``n`` tokens of Markdown, cut the way a tokenizer cuts (words with their space)."""
    blocks = [PARAGRAPH, LIST, PARAGRAPH, CODE]
    pieces: list[str] = []
    i = 0
    while len(pieces) < n:
        pieces += re.findall(r"\s*\S+|\s+", blocks[i % len(blocks)])
        i += 1
    return pieces[:n]


def coalesce(tokens: Sequence[str], per_update: int) -> list[str]:
    return ["".join(tokens[i : i + per_update]) for i in range(0, len(tokens), per_update)]


def app_and_theme() -> tuple[Any, Any]:
    from PySide6.QtWidgets import QApplication

    from app.common.qt_compat import keep_none_alive
    from app.common.theme import ThemeManager
    from app.common.workers import install_invoker

    app = QApplication.instance() or QApplication([])
    assert isinstance(app, QApplication)
    keep_none_alive()
    install_invoker()
    return app, ThemeManager(app, "light")


def math_reply(variant: int) -> str:
    """A reply of about 600 tokens with inline math in its paragraphs and display formulas
    between them; ``variant`` changes every formula (so none is drawn already)."""
    parts: list[str] = []
    for i in range(6):
        k = 10 * (variant + 1) + i
        parts.append(
            f"The series $\\sum_{{j=1}}^{{{k}}} j^2 = \\frac{{{k}({k}+1)(2 \\cdot {k}+1)}}{{6}}$ "
            f"grows like $O({k}^3)$, and with $\\alpha_{k} = \\sqrt{{{k}}}$ the bound "
            f"\\(\\alpha_{k}^2 \\le {k}\\) holds; the cost is $5 per step.\n\n"
        )
        parts.append(
            "$$\n"
            f"\\int_0^{{{k}}} e^{{-x^2}}\\,dx \\approx \\frac{{\\sqrt{{\\pi}}}}{{2}}"
            f" - \\sum_{{m={k}}}^{{\\infty}} \\frac{{(-1)^m x^{{2m+1}}}}{{m!\\,(2m+1)}}\n"
            "$$\n\n"
        )
    return "".join(parts)


def code_reply(lines: int = 200) -> str:
    body = "".join(
        f"    total_{i} = sweep(angle + {i} * 0.5, speed={i % 7}) + len('line {i}')  # step {i}\n"
        for i in range(lines)
    )
    return f"Here is the module:\n\n```python\ndef run(angle: float) -> None:\n{body}```\n\nDone.\n"


def bench_heavy_updates(
    app: Any, theme: Any, texts: Sequence[str], per_update: int = 2
) -> dict[str, Any]:
    """Feed each text to the real ChatView ``per_update`` tokens at a time; the worst update of
    each (render, layout and paint)."""
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.chat.message.document import warm_up
    from app.chat.view import ChatView

    warm_up()
    worst: list[float] = []
    medians: list[float] = []
    updates = 0
    for text in texts:
        view = ChatView(theme.colors)
        view.resize(1240, 700)
        view.show()
        app.processEvents()
        widget = view.add_message("assistant")
        widget.start_stream()
        pieces = coalesce(re.findall(r"\s*\S+|\s+", text), per_update)
        costs: list[float] = []
        for piece in pieces:
            start = time.perf_counter()
            widget.append(piece)
            QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
            app.processEvents()
            costs.append(time.perf_counter() - start)
        start = time.perf_counter()
        widget.finish("complete")
        app.processEvents()
        costs.append(time.perf_counter() - start)
        assert widget.text == text
        worst.append(max(costs))
        medians.append(statistics.median(costs))
        updates = len(costs)
        view.close()
        app.processEvents()
    return {
        "rounds": len(texts),
        "updates": updates,
        "worst_update_ms_median": round(statistics.median(worst) * 1000, 1),
        "worst_update_ms_each": [round(w * 1000, 1) for w in worst],
        "median_update_ms": round(statistics.median(medians) * 1000, 2),
    }


def bench_math_reply(app: Any, theme: Any, rounds: int = 5) -> dict[str, Any]:
    """The first reply also pays for importing the math renderer: reported apart."""
    first = bench_heavy_updates(app, theme, [math_reply(0)])
    result = bench_heavy_updates(app, theme, [math_reply(i + 1) for i in range(rounds)])
    result["first_reply_worst_update_ms"] = first["worst_update_ms_median"]
    result["reply_chars"] = len(math_reply(1))
    return result


def bench_update_cost(app: Any, theme: Any, tokens: int = TOKENS) -> dict[str, Any]:
    from PySide6.QtCore import QCoreApplication, QEvent

    from app.chat.message.document import warm_up
    from app.chat.view import ChatView

    warm_up()
    view = ChatView(theme.colors)
    view.resize(1240, 700)
    view.show()
    app.processEvents()
    widget = view.add_message("assistant")
    widget.start_stream()
    updates = coalesce(synthetic_tokens(tokens), EMIT_TOKENS)
    render: list[float] = []
    paint: list[float] = []
    for text in updates:
        start = time.perf_counter()
        widget.append(text)
        QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest.value)
        laid_out = time.perf_counter()
        app.processEvents()  # painting what changed, and scrolling to keep the end in view
        render.append(laid_out - start)
        paint.append(time.perf_counter() - laid_out)
    widget.finish("complete")
    total = [r + p for r, p in zip(render, paint, strict=True)]
    tenth = max(1, len(total) // 10)

    def ms(values: list[float]) -> float:
        return round(statistics.median(values) * 1000, 2)

    result = {
        "tokens": tokens,
        "updates": len(total),
        "reply_chars": len(widget.text),
        "documents": len(widget.bodies),
        "first_tenth_median_ms": ms(total[:tenth]),
        "last_tenth_median_ms": ms(total[-tenth:]),
        "end_to_start_ratio": round(ms(total[-tenth:]) / ms(total[:tenth]), 2),
        "render_first_tenth_ms": ms(render[:tenth]),
        "render_last_tenth_ms": ms(render[-tenth:]),
        "paint_first_tenth_ms": ms(paint[:tenth]),
        "paint_last_tenth_ms": ms(paint[-tenth:]),
        "max_update_ms": round(max(total) * 1000, 1),
    }
    view.close()
    return result


def fake_chat(tokens: Sequence[str], rate: float) -> Any:
    """A chat function with the engine client's contract: text chunks at ``rate`` tokens/s,
    then one terminal chunk."""
    from engine.types import Chunk, GenerationStats

    def chat(_messages: Any, _params: Any, cancel: threading.Event) -> Iterator[Chunk]:
        start = time.perf_counter()
        for i, token in enumerate(tokens):
            if cancel.is_set():
                yield Chunk(finish_reason="cancelled")
                return
            delay = start + (i + 1) / rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            yield Chunk(text=token)
        total = time.perf_counter() - start
        stats = GenerationStats(
            prompt_tokens=20, completion_tokens=len(tokens), decode_tokens_per_s=rate, total_s=total
        )
        yield Chunk(finish_reason="stop", stats=stats)

    return lambda: chat


def bench_streaming(app: Any, theme: Any, rate: float) -> dict[str, Any]:
    from PySide6.QtCore import QEventLoop, QTimer

    from app.shell.main_window import MainWindow
    from app.shell.stall_meter import StallMeter

    with tempfile.TemporaryDirectory(prefix="cove-bench-") as data:
        os.environ["COVE_DATA_DIR"] = data
        window = MainWindow(theme)
        window.start_engine = False
        window.resize(1240, 780)
        window.show()
        loop = QEventLoop()
        window.controller.store_opened.connect(loop.quit)
        window.start()
        loop.exec()
        window.show_page("chat")
        tokens = synthetic_tokens()
        window.engine.chat_fn = fake_chat(tokens, rate)  # type: ignore[method-assign]
        meter = StallMeter()
        done = QEventLoop()
        window.controller.reply_finished.connect(lambda _o: done.quit())
        QTimer.singleShot(20_000 + int(len(tokens) / rate * 3000), done.quit)
        app.processEvents()
        meter.start()
        started = time.perf_counter()
        window.composer.set_text("Tell me about the lighthouse, with code.")
        window.controller.send(window.composer.text)
        done.exec()
        meter.stop()
        elapsed = time.perf_counter() - started
        reply = window.view.messages[-1]
        ok = reply.status == "complete" and reply.text == "".join(tokens)
        window.close()
        app.processEvents()
    return {
        "tokens_per_s": rate,
        "ok": ok,
        "seconds": round(elapsed, 2),
        "max_ui_stall_ms": meter.max_stall_ms,
    }


def bench_open_long_chat(app: Any, theme: Any, messages: int = 200) -> dict[str, Any]:
    """At start-up (the window reopens the last chat) and later, switching to it from another."""
    from PySide6.QtCore import QEventLoop, QTimer

    from app.shell.main_window import MainWindow
    from app.shell.stall_meter import StallMeter
    from engine.store import Store

    reply = "".join(synthetic_tokens(300))
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="cove-bench-") as data:
        os.environ["COVE_DATA_DIR"] = data
        with Store() as store:
            other = store.create_conversation("Short chat")
            store.add_message(other.id, "user", "Hello")
            long = store.create_conversation("Long chat")
            for i in range(messages // 2):
                store.add_message(long.id, "user", f"Question {i}: what about the lamp?")
                store.add_message(long.id, "assistant", reply)
            store.set_setting("welcomed", True)
        window = MainWindow(theme)
        window.start_engine = False
        window.resize(1240, 780)
        window.show()

        def measure(action: Any) -> tuple[float, float]:
            meter = StallMeter()
            shown = QEventLoop()
            window.view.conversation_shown.connect(shown.quit)
            app.processEvents()
            meter.start()
            started = time.perf_counter()
            action()
            shown.exec()
            meter.stop()
            window.view.conversation_shown.disconnect(shown.quit)
            return time.perf_counter() - started, meter.max_stall_ms

        # The window reopens the most recent conversation (the long one) as it starts.
        seconds, stall = measure(window.start)
        results["at_start_up"] = {"seconds_to_shown": round(seconds, 2), "max_ui_stall_ms": stall}
        settle = QEventLoop()
        QTimer.singleShot(1500, settle.quit)  # let the start-up warm-up finish
        settle.exec()
        window.controller.open_conversation(other.id)
        settle = QEventLoop()
        QTimer.singleShot(300, settle.quit)
        settle.exec()
        seconds, stall = measure(lambda: window.controller.open_conversation(long.id))
        results["switching_to_it"] = {
            "seconds_to_shown": round(seconds, 2),
            "max_ui_stall_ms": stall,
        }
        results["messages"] = messages
        results["built_at_once"] = len(window.view.messages)
        window.close()
        app.processEvents()
    return results


def write_versioned_chat(data: str, messages: int, versions: int) -> int:
    """A chat whose path shows ``messages`` messages, every reply with ``versions`` versions
    (the shown one the last written), in a history at ``data``; returns its id."""
    from engine.store import Store

    reply = "".join(synthetic_tokens(300))
    os.environ["COVE_DATA_DIR"] = data
    with Store() as store:
        chat = store.create_conversation("Versions")
        for i in range(messages // 2):
            store.add_message(chat.id, "user", f"Question {i}: what about the lamp?")
            first = store.add_message(chat.id, "assistant", f"Version 1. {reply}")
            for n in range(2, versions + 1):
                store.add_version(first.id, f"Version {n}. {reply}")
        store.set_setting("welcomed", True)
        store.set_setting("last_conversation", chat.id)
        return chat.id


def bench_versioned_chat(
    app: Any, theme: Any, messages: int = 500, versions: int = 3
) -> dict[str, Any]:
    """Open a long chat whose every reply has versions, scroll it to its first message (building
    the older ones as a person asks for them), and flip a version half-way up."""
    from PySide6.QtCore import QEventLoop

    from app.shell.main_window import MainWindow
    from app.shell.stall_meter import StallMeter

    results: dict[str, Any] = {"messages": messages, "versions_per_reply": versions}
    with tempfile.TemporaryDirectory(prefix="cove-bench-") as data:
        write_versioned_chat(data, messages, versions)
        window = MainWindow(theme)
        window.start_engine = False
        window.resize(1240, 780)
        window.show()
        view = window.view

        def wait_shown() -> None:
            shown = QEventLoop()
            view.conversation_shown.connect(shown.quit)
            shown.exec()
            view.conversation_shown.disconnect(shown.quit)

        meter = StallMeter()
        app.processEvents()
        meter.start()
        started = time.perf_counter()
        window.start()
        wait_shown()
        results["open"] = {
            "seconds_to_shown": round(time.perf_counter() - started, 2),
            "max_ui_stall_ms": meter.max_stall_ms,
        }
        meter.stop()
        meter = StallMeter()
        meter.start()
        bar = view.verticalScrollBar()
        steps = 0
        while True:  # a wheel's worth at a time, up to the top, asking for older messages there
            while bar.value() > bar.minimum():
                bar.setValue(bar.value() - 120)
                app.processEvents()
                steps += 1
            if not view.earlier_button.isVisible():
                break
            view.earlier_button.click()
            while view._pending or view._building is not None:
                app.processEvents()
        results["scroll_to_top"] = {
            "wheel_steps": steps,
            "built": len(view.messages),
            "max_ui_stall_ms": meter.max_stall_ms,
        }
        meter.stop()
        middle = next(
            w for w in view.messages[len(view.messages) // 2 :] if len(w.versions) == versions
        )
        meter = StallMeter()
        meter.start()
        started = time.perf_counter()
        flipped = QEventLoop()
        view.conversation_shown.connect(flipped.quit)
        middle.version_switch.previous.click()
        flipped.exec()
        results["flip_a_version_half_way_up"] = {
            "seconds": round(time.perf_counter() - started, 2),
            "max_ui_stall_ms": meter.max_stall_ms,
        }
        meter.stop()
        window.close()
        app.processEvents()
    return results


def bench_cold_start(runs: int, chat: tuple[int, int] | None = None) -> dict[str, Any]:
    """Process start to the first painted window; with ``chat`` (messages, versions per reply)
    the data folder holds such a chat, which the window reopens."""
    times: list[float] = []
    env = dict(os.environ, QT_QPA_PLATFORM=os.environ.get("QT_QPA_PLATFORM", "offscreen"))
    for i in range(runs + 1):
        with tempfile.TemporaryDirectory(prefix="cove-bench-") as data:
            env["COVE_DATA_DIR"] = data
            if chat is not None:
                write_versioned_chat(data, *chat)
            out = subprocess.run(
                [sys.executable, "-m", "app", "--exit-after-paint"],
                cwd=ROOT,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=True,
            )
        line = [x for x in out.stdout.splitlines() if x.startswith("{")][-1]
        if i:  # the first run warms the file cache
            times.append(float(json.loads(line)["window_shown_s"]))
    return {
        "runs": runs,
        "median_s": round(statistics.median(times), 3),
        "worst_s": round(max(times), 3),
        "all_s": times,
    }


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quick", action="store_true", help="fewer cold-start runs")
    parser.add_argument(
        "--only", default="", metavar="NAMES", help="comma-separated cases to run (see the top)"
    )
    args = parser.parse_args(argv)
    app, theme = app_and_theme()
    runs = 3 if args.quick else 7
    cases: dict[str, Any] = {
        "update_cost": lambda: bench_update_cost(app, theme),
        "update_cost_8k": lambda: bench_update_cost(app, theme, 4 * TOKENS),
        "streaming": lambda: [bench_streaming(app, theme, rate) for rate in (100.0, 400.0)],
        "open_long_chat": lambda: bench_open_long_chat(app, theme),
        "versioned_chat": lambda: bench_versioned_chat(app, theme),
        "math_reply": lambda: bench_math_reply(app, theme),
        "code_block": lambda: bench_heavy_updates(app, theme, [code_reply()] * 5),
        "cold_start": lambda: bench_cold_start(runs),
        "cold_start_versioned_chat": lambda: bench_cold_start(runs, (500, 3)),
    }
    chosen = [name.strip() for name in args.only.split(",") if name.strip()] or list(cases)
    unknown = [name for name in chosen if name not in cases]
    if unknown:
        parser.error(f"unknown case(s): {', '.join(unknown)}")
    results: dict[str, Any] = {"machine": {"cpus": os.cpu_count(), "platform": sys.platform}}
    for name in chosen:
        results[name] = cases[name]()
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    report(results)
    return 0


def report(results: dict[str, Any]) -> None:
    for key in ("update_cost", "update_cost_8k"):
        if key not in results:
            continue
        u = results[key]
        print(
            f"update cost, {u['tokens']}-token reply ({u['updates']} updates, "
            f"{u['reply_chars']} chars in {u['documents']} documents): median first tenth "
            f"{u['first_tenth_median_ms']} ms, last tenth {u['last_tenth_median_ms']} ms "
            f"(ratio {u['end_to_start_ratio']}; render {u['render_first_tenth_ms']} -> "
            f"{u['render_last_tenth_ms']} ms, paint {u['paint_first_tenth_ms']} -> "
            f"{u['paint_last_tenth_ms']} ms); worst {u['max_update_ms']} ms"
        )
    for s in results.get("streaming", ()):
        print(
            f"streaming {TOKENS} tokens at {s['tokens_per_s']:.0f} tokens/s: longest UI stall "
            f"{s['max_ui_stall_ms']} ms ({s['seconds']} s, complete: {s['ok']})"
        )
    report_chats(results)
    for key, what in (
        ("math_reply", "a reply with TeX math"),
        ("code_block", "a 200-line code block"),
    ):
        if key not in results:
            continue
        h = results[key]
        first = h.get("first_reply_worst_update_ms")
        print(
            f"{what}, {h['updates']} updates of 2 tokens: worst update "
            f"{h['worst_update_ms_median']} ms (median of {h['rounds']} rounds: "
            f"{h['worst_update_ms_each']}), median update {h['median_update_ms']} ms"
            + (f"; first reply (importing the renderer) worst {first} ms" if first else "")
        )
    for key, what in (("cold_start", "empty history"), ("cold_start_versioned_chat", "that chat")):
        if key not in results:
            continue
        c = results[key]
        print(
            f"cold start to first paint ({what}): median {c['median_s']} s, worst "
            f"{c['worst_s']} s ({c['runs']} runs)"
        )


def report_chats(results: dict[str, Any]) -> None:
    if "open_long_chat" in results:
        o = results["open_long_chat"]
        for when in ("at_start_up", "switching_to_it"):
            print(
                f"opening a {o['messages']}-message chat ({when.replace('_', ' ')}, newest "
                f"{o['built_at_once']} built): shown in {o[when]['seconds_to_shown']} s, "
                f"longest UI stall {o[when]['max_ui_stall_ms']} ms"
            )
    if "versioned_chat" not in results:
        return
    v = results["versioned_chat"]
    print(
        f"a {v['messages']}-message chat, {v['versions_per_reply']} versions per reply: shown in "
        f"{v['open']['seconds_to_shown']} s (longest stall {v['open']['max_ui_stall_ms']} ms); "
        f"scrolled to the top, {v['scroll_to_top']['built']} built, longest stall "
        f"{v['scroll_to_top']['max_ui_stall_ms']} ms; a version flipped half-way up in "
        f"{v['flip_a_version_half_way_up']['seconds']} s, longest stall "
        f"{v['flip_a_version_half_way_up']['max_ui_stall_ms']} ms"
    )


if __name__ == "__main__":
    sys.exit(main())
