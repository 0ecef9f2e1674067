"""Cutting streamed Markdown into final blocks: independent of chunking, bounded open block."""

from __future__ import annotations

import random

from app.chat.message.markdown_stream import (
    MAX_OPEN_LINES,
    BlockSplitter,
    CodeEnded,
    CodeLine,
    CodeStarted,
    MarkdownBlock,
    markdown_to_html,
    split_all,
)

SAMPLE = """# Title
Intro paragraph
continues here.

- one
- two

1. **Step**

   Continuation of step one.

2. Step two:
   ```bash
   ls -la
   ```

```python
def f():
    return "```"
```
Closing words with <b>raw html</b>.
"""


def test_blocks_of_a_sample() -> None:
    events = split_all(SAMPLE)
    assert events[0] == MarkdownBlock("# Title")
    assert events[1] == MarkdownBlock("Intro paragraph\ncontinues here.")
    assert events[2] == MarkdownBlock("- one\n- two")
    # An indented continuation stays with its list item.
    assert events[3] == MarkdownBlock("1. **Step**\n\n   Continuation of step one.")
    assert CodeStarted("bash") in events and CodeLine("ls -la") in events
    py = events.index(CodeStarted("python"))
    body = [CodeLine("def f():"), CodeLine('    return "```"'), CodeEnded()]
    assert events[py + 1 : py + 4] == body
    assert events[-1] == MarkdownBlock("Closing words with <b>raw html</b>.")


def test_any_chunking_gives_the_same_blocks() -> None:
    expected = split_all(SAMPLE)
    rng = random.Random(7)
    for _ in range(100):
        splitter = BlockSplitter()
        got = []
        i = 0
        while i < len(SAMPLE):
            n = rng.randint(1, 9)
            got += splitter.feed(SAMPLE[i : i + n])
            i += n
        got += splitter.finish()
        assert got == expected


def test_open_block_stays_small_in_a_long_list() -> None:
    splitter = BlockSplitter()
    longest = 0
    for i in range(200):
        splitter.feed(f"- item {i}\n")
        longest = max(longest, splitter.open_markdown.count("\n") + 1)
    assert longest <= MAX_OPEN_LINES + 1


def test_unterminated_fence_is_closed_at_the_end() -> None:
    splitter = BlockSplitter()
    events = splitter.feed("```\ncode")
    assert splitter.in_code and splitter.open_code_line == "code"
    events += splitter.finish()
    assert events == [CodeStarted(""), CodeLine("code"), CodeEnded()]


def test_raw_html_is_shown_as_text() -> None:
    html = markdown_to_html("a <script>alert(1)</script> b")
    assert "<script>" not in html and "&lt;script&gt;" in html
