"""Vision models through llama.cpp's multimodal library, for real: a Gemma 3 language model and
its projector with random weights (tests/tiny_vision.py) load, take an image, count its tokens as
the plan says, stream text and stop; the planner's image-encoder term is what llama.cpp
allocates. What such a model says is noise: nothing here looks at the words."""

from __future__ import annotations

import base64
import io
import json
import re
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import anthropic
import ollama
import openai
import pytest
from PIL import Image

from engine.backends.llama.single import LlamaCppModel
from engine.backends.loader import load_model, plan_model
from engine.client.local import LocalEngine
from engine.errors import InvalidRequest
from engine.images import read_image
from engine.native.llama import recent_log
from engine.types import ChatMessage, GenerationParams, ImageInput
from tests.conftest import collect
from tests.support.tiny_gguf import write_model
from tests.tiny_vision import TEXT, VisionShape, write_projector, write_vision_model

GREEDY = GenerationParams(temperature=0.0, max_tokens=8)


def picture(
    size: tuple[int, int] = (320, 200), color: tuple[int, int, int] = (30, 90, 200)
) -> bytes:
    img = Image.new("RGB", size, color)
    for x in range(0, size[0], 20):
        for y in range(size[1]):
            img.putpixel((x, y), (250, 250, 250))
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return buf.getvalue()


@pytest.fixture(scope="module")
def vision_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_vision_model(tmp_path_factory.mktemp("vision"))


@pytest.fixture(scope="module")
def vision_model(vision_files: tuple[Path, Path]) -> Iterator[LlamaCppModel]:
    loaded = load_model(str(vision_files[0]), ctx=1024)
    assert isinstance(loaded.model, LlamaCppModel)
    yield loaded.model
    loaded.model.close()


@pytest.fixture(scope="module")
def image() -> ImageInput:
    return read_image(picture())


def test_the_plan_counts_the_projector(vision_files: tuple[Path, Path]) -> None:
    model, projector = vision_files
    _path, _info, plan = plan_model(str(model), ctx=1024)
    assert plan.projector is not None
    assert Path(plan.projector.path) == projector
    assert plan.projector.image_tokens == VisionShape().image_tokens
    assert plan.budgets[0].projector == plan.projector.weights + plan.projector.compute
    assert plan.budgets[0].total >= plan.budgets[0].projector > 0


def test_a_model_without_its_projector_plans_as_text_and_says_so(tmp_path: Path) -> None:
    model = write_model(tmp_path / "tiny-gemma3-vision-F16.gguf", TEXT)
    _path, _info, plan = plan_model(str(model), ctx=1024)
    assert plan.projector is None
    assert any("projector (mmproj)" in r for r in plan.reasons)
    loaded = load_model(str(model), ctx=1024)
    try:
        assert not getattr(loaded.model, "vision", False)
        pictured = [ChatMessage("user", "What is this?", images=(read_image(picture()),))]
        with pytest.raises(InvalidRequest, match="cannot see images"):
            loaded.model.chat(pictured, GREEDY)
    finally:
        loaded.model.close()


def test_a_projector_for_another_model_is_not_taken(tmp_path: Path) -> None:
    model = write_model(tmp_path / "tiny-gemma3-F16.gguf", TEXT)
    write_projector(tmp_path / "mmproj-other-f16.gguf", VisionShape(), TEXT.embd * 2)
    _path, _info, plan = plan_model(str(model), ctx=1024)
    assert plan.projector is None


def test_an_image_takes_the_tokens_the_plan_says(
    vision_model: LlamaCppModel, image: ImageInput
) -> None:
    plan = vision_model.plan
    assert plan.projector is not None and vision_model.vision
    text = vision_model.render(vision_model._placed([ChatMessage("user", "x", images=(image,))]))
    tokens = vision_model._prompt_tokens(text, [image])
    assert sum(1 for t in tokens if t < 0) == plan.projector.image_tokens
    # Two images, two runs.
    two = vision_model.render(
        vision_model._placed([ChatMessage("user", "x", images=(image, image))])
    )
    assert sum(1 for t in vision_model._prompt_tokens(two, [image, image]) if t < 0) == (
        2 * plan.projector.image_tokens
    )


def test_a_reply_about_an_image_streams_and_stops(
    vision_model: LlamaCppModel, image: ImageInput
) -> None:
    question = [ChatMessage("user", "What is in this picture?", images=(image,))]
    text_only = [ChatMessage("user", "What is in this picture?")]
    reply, final = collect(vision_model.chat(question, GREEDY))
    assert final.finish_reason == "length" and final.error is None
    assert final.stats is not None and final.stats.completion_tokens == GREEDY.max_tokens
    _reply, plain = collect(vision_model.chat(text_only, GREEDY))
    assert plain.stats is not None
    image_tokens = vision_model.plan.projector.image_tokens  # type: ignore[union-attr]
    assert final.stats.prompt_tokens >= plain.stats.prompt_tokens + image_tokens
    assert final.stats.prompt_tokens == vision_model.count_tokens(question)
    # The same image asked about again: the cached image is reused, not evaluated again.
    follow = [
        *question,
        ChatMessage("assistant", reply),
        ChatMessage("user", "And the colours?"),
    ]
    vision_model.reset()
    collect(vision_model.chat(question, GREEDY))
    _again, second = collect(vision_model.chat(follow, GREEDY))
    assert second.stats is not None
    assert second.stats.cached_tokens >= final.stats.prompt_tokens - 1


def test_another_image_in_the_same_place_is_evaluated_again(
    vision_model: LlamaCppModel, image: ImageInput
) -> None:
    other = read_image(picture(color=(200, 40, 40)))
    first = [ChatMessage("user", "Describe it.", images=(image,))]
    second = [ChatMessage("user", "Describe it.", images=(other,))]
    vision_model.reset()
    collect(vision_model.chat(first, GREEDY))
    _text, final = collect(vision_model.chat(second, GREEDY))
    assert final.error is None and final.stats is not None
    # Only the text before the image is shared.
    assert final.stats.cached_tokens < 16


def test_cancelling_a_reply_about_an_image(vision_model: LlamaCppModel, image: ImageInput) -> None:
    cancel = threading.Event()
    stream = vision_model.chat(
        [ChatMessage("user", "Go on.", images=(image,))],
        replace(GREEDY, max_tokens=200),
        cancel,
    )
    first = next(stream)
    assert first.finish_reason is None
    cancel.set()
    *_rest, final = list(stream)
    assert final.finish_reason == "cancelled"
    # The model is usable afterwards.
    _text, after = collect(vision_model.chat([ChatMessage("user", "Hi", images=(image,))], GREEDY))
    assert after.error is None


def _reported(pattern: str) -> float:
    found = [m for line in recent_log(400) if (m := re.search(pattern, line))]
    assert found, f"llama.cpp did not report {pattern!r}"
    return float(found[-1].group(1)) * 2**20


@pytest.mark.parametrize(
    ("shape", "text_embd"),
    [
        (VisionShape(), TEXT.embd),
        # A 448-pixel, 12-block encoder of 768 wide: weights and scratch of real proportions.
        (
            VisionShape(
                image_size=448, patch_size=14, embd=768, ff=3072, layers=12, heads=12, merge=4
            ),
            1024,
        ),
    ],
    ids=["tiny", "448px-vit-b"],
)
def test_the_planner_matches_what_llama_cpp_allocates(
    tmp_path: Path, shape: VisionShape, text_embd: int
) -> None:
    text = replace(TEXT, embd=text_embd, layers=2)
    model = write_model(tmp_path / "vision-F16.gguf", text, sparse=True)
    write_projector(tmp_path / "mmproj-vision-f16.gguf", shape, text_embd, sparse=True)
    loaded = load_model(str(model), ctx=512)
    try:
        plan = loaded.plan.projector
        assert plan is not None
        weights = _reported(r"model size:\s+([\d.]+) MiB")
        compute = _reported(r"CPU compute buffer size =\s+([\d.]+) MiB")
        # llama.cpp prints MiB to two decimals: a tiny encoder's figures are within that.
        slack = 0.006 * 2**20
        assert abs(plan.weights - weights) <= max(0.10 * weights, slack)
        assert abs(plan.compute - compute) <= max(0.10 * compute, slack)
    finally:
        loaded.model.close()


# -- the API, through the official clients -----------------------------------------------------


@pytest.fixture(scope="module")
def host(vision_files: tuple[Path, Path]) -> Iterator[LocalEngine]:
    engine = LocalEngine.start(ready_timeout=120.0)
    try:
        engine.client.load(str(vision_files[0]), ctx=2048)
        yield engine
    finally:
        engine.stop()
        engine.client.close()


def _asking(parts: list[dict[str, Any]]) -> list[Any]:
    """One user message of content parts (OpenAI parts or Anthropic blocks)."""
    return [{"role": "user", "content": parts}]


def _data_url(data: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(data).decode()


def test_the_status_says_vision(host: LocalEngine) -> None:
    status = host.client.status()
    assert status.vision
    assert status.plan is not None and status.plan.projector is not None


def test_openai_image_url_parts(oai: openai.OpenAI, model_id: str) -> None:
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": _data_url(picture())}},
        {"type": "text", "text": "What is in this picture?"},
    ]
    reply = oai.chat.completions.create(
        model=model_id,
        messages=_asking(parts),
        max_tokens=6,
        temperature=0,
    )
    plain = oai.chat.completions.create(
        model=model_id,
        messages=[{"role": "user", "content": "What is in this picture?"}],
        max_tokens=6,
        temperature=0,
    )
    assert reply.choices[0].finish_reason == "length"
    assert reply.usage is not None and plain.usage is not None
    assert reply.usage.prompt_tokens >= plain.usage.prompt_tokens + VisionShape().image_tokens
    stream = oai.chat.completions.create(
        model=model_id,
        messages=_asking(parts),
        max_tokens=6,
        temperature=0,
        stream=True,
    )
    finishes = [c.choices[0].finish_reason for c in stream if c.choices]
    assert finishes[-1] == "length"


def test_a_local_file_url_from_this_computer(
    oai: openai.OpenAI, model_id: str, tmp_path: Path
) -> None:
    path = tmp_path / "chart.png"
    path.write_bytes(picture())
    reply = oai.chat.completions.create(
        model=model_id,
        messages=_asking(
            [
                {"type": "image_url", "image_url": {"url": path.as_uri()}},
                {"type": "text", "text": "Read the chart."},
            ]
        ),
        max_tokens=4,
    )
    assert reply.choices[0].message.content is not None


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("https://example.com/cat.png", "does not fetch images"),
        ("http://127.0.0.1:9/cat.png", "does not fetch images"),
        ("data:image/png;base64,bm90IGFuIGltYWdl", "not an image Cove can read"),
        ("ftp://example.com/cat.png", "must be a data: URL"),
    ],
)
def test_image_urls_cove_will_not_read(
    oai: openai.OpenAI, model_id: str, url: str, says: str
) -> None:
    with pytest.raises(openai.BadRequestError, match=says):
        oai.chat.completions.create(
            model=model_id,
            messages=_asking(
                [
                    {"type": "image_url", "image_url": {"url": url}},
                    {"type": "text", "text": "What is this?"},
                ]
            ),
            max_tokens=4,
        )


def test_anthropic_image_blocks(host: LocalEngine, model_id: str) -> None:
    client = anthropic.Anthropic(base_url=host.base_url[: -len("/v1")], api_key=host._token,
                                 max_retries=0)  # fmt: skip
    reply = client.messages.create(
        model=model_id,
        max_tokens=4,
        messages=_asking(
            [
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": "image/png",
                        "data": base64.b64encode(picture()).decode(),
                    },
                },
                {"type": "text", "text": "What is this?"},
            ]
        ),
    )
    assert reply.stop_reason == "max_tokens"
    with pytest.raises(anthropic.BadRequestError, match="does not fetch"):
        client.messages.create(
            model=model_id,
            max_tokens=4,
            messages=_asking(
                [
                    {
                        "type": "image",
                        "source": {"type": "url", "url": "https://example.com/a.png"},
                    },
                    {"type": "text", "text": "What is this?"},
                ]
            ),
        )


def test_ollama_images(host: LocalEngine, model_id: str, tmp_path: Path) -> None:
    client = ollama.Client(host=host.base_url[: -len("/v1")],
                           headers={"Authorization": f"Bearer {host._token}"})  # fmt: skip
    path = tmp_path / "photo.png"
    path.write_bytes(picture())
    reply = client.chat(
        model=model_id,
        messages=[{"role": "user", "content": "What is this?", "images": [str(path)]}],
        options={"temperature": 0, "num_predict": 4},
    )
    assert reply.done
    generated = client.generate(
        model=model_id, prompt="Describe it.", images=[picture()], options={"num_predict": 4}
    )
    assert generated.done


def test_a_text_model_refuses_images_clearly(local_engine: LocalEngine) -> None:
    assert not local_engine.client.status().vision
    client = openai.OpenAI(base_url=local_engine.base_url, api_key=local_engine._token,
                           max_retries=0)  # fmt: skip
    model = local_engine.client.status().model
    assert model is not None
    with pytest.raises(openai.BadRequestError, match="cannot see images"):
        client.chat.completions.create(
            model=model,
            messages=_asking(
                [
                    {"type": "image_url", "image_url": {"url": _data_url(picture())}},
                    {"type": "text", "text": "What is this?"},
                ]
            ),
            max_tokens=4,
        )
    client.close()


# -- the command line ----------------------------------------------------------------------------


def test_cove_chat_with_images(vision_files: tuple[Path, Path], tmp_path: Path) -> None:
    from tests.cove_process import cove

    photo = tmp_path / "photo.png"
    photo.write_bytes(picture())
    out = cove(
        "chat", "--model", str(vision_files[0]), "--ctx", "1024", "--max-tokens", "4",
        "--temperature", "0", "--stats", "json", "--image", str(photo), "--image", str(photo),
        "What differs between these two pictures?",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    stats = json.loads(out.stderr.strip().splitlines()[-1])
    assert stats["prompt_tokens"] > 2 * VisionShape().image_tokens
    bad = tmp_path / "notes.jpg"
    bad.write_text("not a picture")
    refused = cove("chat", "--model", str(vision_files[0]), "--image", str(bad), "Hi")
    assert refused.returncode != 0
    assert "not an image Cove can read" in refused.stderr


def test_cove_chat_image_with_a_text_model(starter: Path, tmp_path: Path) -> None:
    from tests.cove_process import cove

    photo = tmp_path / "photo.png"
    photo.write_bytes(picture())
    out = cove("chat", "--model", "starter", "--max-tokens", "4", "--image", str(photo), "Hi")
    assert out.returncode != 0
    assert "cannot see images" in out.stderr


def test_cove_plan_shows_the_image_encoder(vision_files: tuple[Path, Path]) -> None:
    from tests.cove_process import cove

    out = cove("plan", str(vision_files[0]))
    assert out.returncode == 0, out.stderr
    line = next(line for line in out.stdout.splitlines() if line.startswith("Vision"))
    assert vision_files[1].name in line
    assert f"{VisionShape().image_tokens} tokens" in line
    data = json.loads(cove("plan", str(vision_files[0]), "--json").stdout)
    assert data["projector"]["image_tokens"] == VisionShape().image_tokens
    assert data["budgets"][0]["projector"] > 0
