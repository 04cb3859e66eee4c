"""The conversation is converted to a provider's shape once per message, while it only grows."""

from __future__ import annotations

from hookline import Message
from hookline._agent.messages import TextBlock
from hookline.models._history import History


def test_each_message_is_converted_once_while_the_conversation_grows() -> None:
    converted: list[str] = []

    def convert(message: Message) -> list[dict[str, str]]:
        converted.append(message.text)
        return [{"role": message.role, "content": message.text}]

    history = History(convert)
    first, second, third = Message.user("a"), Message.assistant("b"), Message.user("c")
    assert history([first, second]) == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
    ]
    assert history([first, second, third])[-1] == {"role": "user", "content": "c"}
    assert converted == ["a", "b", "c"]


def test_a_conversation_that_changed_is_converted_again_from_the_first_difference() -> None:
    history = History(lambda m: [{"content": m.text}])
    first, second = Message.user("a"), Message.assistant("b")
    history([first, second])
    replaced = Message("user", (TextBlock("summary"),))  # e.g. compacted: another object
    assert history([replaced, second]) == [{"content": "summary"}, {"content": "b"}]
    assert history([first]) == [{"content": "a"}]
