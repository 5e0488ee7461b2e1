"""A scripted OpenAI-compatible server for the tests and the benchmark (127.0.0.1, port 0).

The model id of a request picks a deterministic persona:
``gold`` answers the gold letter, ``always-A`` (-B, -C, -D) one letter, ``random-SEED`` a letter
drawn from the seed and the question, ``verbose`` "The answer is X." with the gold letter,
``same-wrong`` the same wrong option whatever the order (alphabetically first non-gold text),
``longest`` the longest option (a shortcut that needs no question),
``empty`` nothing, ``rambling`` text without a letter. A ``+delay=S`` suffix adds think time.
Judge prompts get a JSON verdict, generation prompts a JSON item (``reject`` persona: a rejection).

Faults are scripted (``fail_next``): 429 with Retry-After, 500, a reply slower than the client's
timeout, malformed JSON, empty content, a 500 whose body echoes the Authorization header, a 200
page of HTML (a proxy's), a reply that streams forever (``trickle``: a byte every 0.1 s until
the client hangs up), a reply of ``size`` bytes streamed as fast as the client reads (``huge``: a
completion whose text is the gold letter and then words, to the size; ``sent_bytes`` counts what
left before the client hung up) and a redirect to ``location`` (``redirect``; ``redirect_models``
redirects the model listing too).
Every request is counted, per path and per (model, question).

A model's context window can be scripted (``context``: prompts of more tokens, one per 4 bytes,
are refused with HTTP 400 in the words of ``context_style``: ``openai`` (which names the window),
``llama.cpp`` (``n_ctx`` and ``n_prompt_tokens`` in the error) or ``bare`` (names nothing)), as
can llama.cpp's ``/props`` (``props``) and ``/tokenize`` (``tokenize``).
"""

from __future__ import annotations

import json
import random
import re
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

LETTERS = "ABCD"
_OPTION = re.compile(r"^([ABCD])\. (.*)$", re.MULTILINE)
_QUESTION = re.compile(r"^Question: (.*)$", re.MULTILINE)


@dataclass
class Fault:
    kind: str  # 429, 500, 404, slow, malformed, empty, echo-auth, html, trickle
    times: int
    retry_after: str | None = None
    question: str | None = None  # only requests whose question contains this text
    seconds: float = 0.0
    size: int = 0  # bytes of a ``huge`` reply
    location: str = ""  # where a ``redirect`` sends the client


class ScriptedServer:
    """Serve in a background thread: ``with ScriptedServer(gold) as server: server.url``."""

    def __init__(self, gold: dict[str, str] | None = None) -> None:
        self.gold = gold or {}  # question text -> gold option text
        self.requests: Counter[str] = Counter()  # per path
        self.asked: Counter[tuple[str, str]] = Counter()  # per (model, question)
        self.authorizations: list[str] = []
        self.bodies: list[dict[str, Any]] = []
        self.keep_bodies = True
        self.served: list[str] = []  # the model ids GET /models lists (none: it cannot tell)
        self.context: int | None = None  # the model's context window in tokens (None: endless)
        self.context_style = "openai"
        self.props = False  # serve llama.cpp's /props (n_ctx) and /tokenize
        self.props_delay = 0.0  # seconds /props takes to answer
        self.tokenize = False
        self.prompts: list[str] = []  # every completion prompt, in order
        self.sent_bytes = 0  # bytes of ``huge`` replies written before the client hung up
        self.redirect_models: str | None = None  # GET /models answers 307 to this address
        self._faults: list[Fault] = []
        self._lock = threading.Lock()
        handler = type("Handler", (_Handler,), {"scripted": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self._thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def start(self) -> ScriptedServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def fail_next(
        self,
        kind: str,
        times: int = 1,
        *,
        retry_after: str | None = None,
        question: str | None = None,
        seconds: float = 0.0,
        size: int = 0,
        location: str = "",
    ) -> None:
        with self._lock:
            self._faults.append(Fault(kind, times, retry_after, question, seconds, size, location))

    def clear_faults(self) -> None:
        """Forget the faults not served yet."""
        with self._lock:
            self._faults.clear()

    def total(self) -> int:
        return sum(self.requests.values())

    def take_fault(self, question: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.times > 0 and (fault.question is None or fault.question in question):
                    fault.times -= 1
                    return fault
        return None

    # -- personas ------------------------------------------------------------------------------

    def reply(self, model: str, prompt: str) -> str:
        persona, _, options = model.partition("+")
        delay = re.search(r"delay=([0-9.]+)", options)
        if delay:
            time.sleep(float(delay.group(1)))
        if "Keyed answer:" in prompt:
            return self._judge(persona, prompt)
        if "multiple-choice closed-book benchmark question" not in prompt:
            return self._generate(persona, prompt)
        question, shown = parse_prompt(prompt)
        gold_text = self.gold.get(question)
        gold = LETTERS[shown.index(gold_text)] if gold_text in shown else "A"
        if persona == "gold":
            return gold
        if persona.startswith("always-"):
            return persona[-1]
        if persona.startswith("random-"):
            return random.Random(f"{persona}:{question}").choice(LETTERS)
        if persona == "longest":  # an options-only shortcut: the longest option
            return LETTERS[max(range(len(shown)), key=lambda i: (len(shown[i]), -i))]
        if persona == "verbose":
            return f"The answer is {gold}."
        if persona == "same-wrong":
            wrong = sorted(t for t in shown if t != gold_text)[0]
            return LETTERS[shown.index(wrong)]
        if persona == "empty":
            return ""
        return "I would rather not say which one is right."

    def _judge(self, persona: str, prompt: str) -> str:
        gold = re.search(r"^Keyed answer: ([ABCD])", prompt, re.MULTILINE)
        key = gold.group(1) if gold else "A"
        if persona == "gold":
            return json.dumps({"verdict": "ok", "key": key, "reason": "The evidence states it."})
        if persona == "rambling":
            return "This item looks fine to me."
        other = LETTERS[(LETTERS.index(key) + 1) % 4]
        return "Here is my verdict:\n" + json.dumps(
            {"verdict": "wrong_gold", "key": other, "reason": "The evidence names another."}
        )

    def _generate(self, persona: str, prompt: str) -> str:
        if persona == "reject":
            return json.dumps({"usable": "false", "rejection_reason": "too_sparse"})
        if persona == "rambling":
            return "I cannot write a question about this."
        if persona != "generator":
            return "{}"
        if "Wikipedia article" in prompt:
            item = {
                "dimension": "Diet",
                "question": "What does this species mainly feed on?",
                "options": ["Insects", "Seeds", "Fish", "Nectar"],
                "answer": "Insects",
            }
            return json.dumps({"questions": [item]})
        if "bioacoustics" in prompt:
            return json.dumps(
                {
                    "question": "What is the typical dominant frequency range of its song?",
                    "options": {"A": "1-2 kHz", "B": "3-5 kHz", "C": "8-10 kHz", "D": "12-14 kHz"},
                    "answer": "B",
                }
            )
        dimension = (
            "Result Interpretation" if "bioRxiv" in prompt else "Masked participant identification"
        )
        return json.dumps(
            {
                "usable": "true",
                "dimension": dimension,
                "question": "Which taxon best fills the missing partner of this interaction?",
                "options": {
                    "A": "Apis mellifera",
                    "B": "Bombus terrestris",
                    "C": "Vespa crabro",
                    "D": "Musca domestica",
                },
                "correct_answer": "B",
                "supporting_evidence": ["Bombus terrestris visits flowers of Trifolium"],
                "rationale": "The record links the plant to Bombus terrestris.",
            }
        )


def tokens(text: str) -> int:
    """The scripted model's tokens in ``text``: one per 4 bytes (English runs about that)."""
    return -(-len(text.encode("utf-8")) // 4)


def parse_prompt(prompt: str) -> tuple[str, list[str]]:
    question = _QUESTION.search(prompt)
    return (question.group(1) if question else "", [m.group(2) for m in _OPTION.finditer(prompt)])


class _Handler(BaseHTTPRequestHandler):
    scripted: ScriptedServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body leave at once (no 40 ms delayed-ACK wait)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        return

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
            self.close_connection = True

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode("utf-8"), headers)

    def do_GET(self) -> None:
        server = self.scripted
        if self.path.rstrip("/").endswith("/_stats"):  # the benchmark's request count
            self._json(200, {"total": server.total(), "requests": dict(server.requests)})
            return
        with server._lock:
            server.requests[self.path] += 1
        if self.path.rstrip("/").endswith("/models") and server.redirect_models:
            self._redirect(server.redirect_models)
        elif self.path.rstrip("/").endswith("/models"):
            data = [{"id": name, "object": "model"} for name in server.served]
            self._json(200, {"object": "list", "data": data})
        elif self.path == "/props" and server.props:
            time.sleep(server.props_delay)
            settings = {"n_ctx": server.context, "temperature": 0.8}
            self._json(200, {"default_generation_settings": settings, "total_slots": 1})
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        server = self.scripted
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        chat = self.path.endswith("/chat/completions")
        if chat:
            prompt = "\n\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        else:
            prompt = str(body.get("prompt", ""))
        model = str(body.get("model", ""))
        question, _ = parse_prompt(prompt)
        if self.path == "/tokenize" and server.tokenize:
            with server._lock:
                server.requests[self.path] += 1
            self._json(200, {"tokens": list(range(tokens(str(body.get("content", "")))))})
            return
        if not (chat or self.path.endswith("/completions")):
            with server._lock:
                server.requests[self.path] += 1
            self._json(404, {"error": {"message": f"no route {self.path}"}})
            return
        with server._lock:
            server.requests[self.path] += 1
            server.asked[(model, question)] += 1
            server.authorizations.append(self.headers.get("Authorization", ""))
            if server.keep_bodies:
                server.bodies.append(body)
                server.prompts.append(prompt)
        if server.context is not None and tokens(prompt) >= server.context:
            self._too_long(tokens(prompt), server.context, int(body.get("max_tokens") or 0))
            return
        fault = server.take_fault(question)
        if fault is not None and fault.kind == "huge":
            self._huge(fault.size, server.reply("gold", prompt), chat)
            return
        if fault is not None and self._fault(fault):
            return
        text = "" if fault is not None and fault.kind == "empty" else server.reply(model, prompt)
        usage = {"prompt_tokens": len(prompt.split()), "completion_tokens": len(text.split())}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        if chat:
            content = None if fault is not None and fault.kind == "empty" else text
            choice: dict[str, Any] = {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
            }
            kind = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "finish_reason": "stop", "logprobs": None}
            kind = "text_completion"
        self._json(
            200,
            {
                "id": "cmpl-scripted",
                "object": kind,
                "created": 0,
                "model": model,
                "choices": [choice],
                "usage": usage,
            },
        )

    def _too_long(self, used: int, window: int, reply: int) -> None:
        """A context-length error, in the words of the server the script plays."""
        style = self.scripted.context_style
        if style == "llama.cpp":
            error = {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": used,
                     "n_ctx": window,
                     "message": "the request exceeds the available context size, try increasing "
                                "it"}  # fmt: skip
        elif style == "bare":
            error = {"message": "prompt is too long", "type": "invalid_request_error"}
        else:
            error = {"code": "context_length_exceeded", "type": "invalid_request_error",
                     "message": f"This model's maximum context length is {window} tokens. However,"
                                f" you requested {used + reply} tokens ({used} in the messages, "
                                f"{reply} in the completion)."}  # fmt: skip
        self._json(400, {"error": error})

    def _redirect(self, location: str) -> None:
        self.send_response(307)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _huge(self, size: int, letter: str, chat: bool) -> None:
        """A completion of ``size`` bytes whose text is ``letter`` and then words, streamed as
        fast as the client reads, without building it (a gigabyte costs nothing here)."""
        field = '"message": {"role": "assistant", "content": "' if chat else '"text": "'
        head = ('{"id": "cmpl-huge", "object": "chat.completion", "created": 0, "model": "m", '
                '"choices": [{"index": 0, ' + field + letter + " ").encode()  # fmt: skip
        tail = b'"}, "finish_reason": "length"}]}' if chat else b'", "finish_reason": "length"}]}'
        words = b"and so on " * 6554  # about 64 KiB
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(size))
        self.end_headers()
        left = size - len(head) - len(tail)
        try:
            self._count(self.wfile.write(head))
            while left > 0:
                chunk = words[: min(left, len(words))]
                self._count(self.wfile.write(chunk))
                left -= len(chunk)
            self._count(self.wfile.write(tail))
        except OSError:  # the client hung up: what it read is all it gets
            self.close_connection = True

    def _count(self, written: int | None) -> None:
        with self.scripted._lock:
            self.scripted.sent_bytes += written or 0

    def _fault(self, fault: Fault) -> bool:
        """Answer with the fault; False for faults that only change the reply."""
        if fault.kind == "429":
            headers = {"Retry-After": fault.retry_after} if fault.retry_after else {}
            self._json(429, {"error": {"message": "rate limited", "type": "rate_limit"}}, headers)
        elif fault.kind == "500":
            self._json(500, {"error": {"message": "internal error"}})
        elif fault.kind == "404":  # OpenAI's and vLLM's answer to a model they do not serve
            message = "The model does not exist or you do not have access to it."
            self._json(404, {"error": {"message": message, "code": "model_not_found"}})
        elif fault.kind == "echo-auth":
            message = f"bad request from {self.headers.get('Authorization', '')}"
            self._json(500, {"error": {"message": message}})
        elif fault.kind == "malformed":
            self._send(200, b'{"id": "cmpl-broken", "choices": [')
        elif fault.kind == "html":
            page = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)
        elif fault.kind == "trickle":
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            try:
                while True:  # one space at a time: a body that never ends
                    self.wfile.write(b"1\r\n \r\n")
                    self.wfile.flush()
                    time.sleep(0.1)
            except OSError:  # the client hung up
                self.close_connection = True
        elif fault.kind == "redirect":
            self._redirect(fault.location)
        elif fault.kind == "slow":
            time.sleep(fault.seconds)
            return False
        else:
            return False
        return True


def main() -> None:
    """Serve until killed, printing the base URL (for the benchmark's separate process)."""
    server = ScriptedServer()
    server.keep_bodies = False
    if len(sys.argv) > 1:
        server.gold = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))
    print(server.url, flush=True)
    server.httpd.serve_forever()


if __name__ == "__main__":
    main()
