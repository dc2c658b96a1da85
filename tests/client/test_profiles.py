"""Per-person profiles: one per human speaker, per field, from current facts only, covering
conversation time (real SQLite files, the real local embedder, real LoCoMo conversations)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from pydantic import BaseModel, Field

from agent_memory import AsyncMemory
from agent_memory.config import Settings
from agent_memory.consistency.audit import supersede
from agent_memory.datasets.locomo import load_locomo
from agent_memory.errors import ConfigError, EmptyContentError, InvalidTextError
from agent_memory.models import Fact, SupersedeReason, UserProfile, profile_id, subject_slug
from agent_memory.profile_schema import (
    PersonProfile,
    SchemaField,
    Statement,
    newest_distinct,
    render_profile,
    schema_fields,
)
from agent_memory.tokens import count_tokens

T0 = datetime(2024, 2, 1, 10, 0, tzinfo=UTC)


class HomeProfile(BaseModel):
    """A custom two-field schema (what ``Settings.profile_schema`` may name)."""

    home: list[str] = Field(default_factory=list, description="where the person lives",
                            examples=["The person lives in Leeds.", "The person moved house."])
    pets: list[str] = Field(default_factory=list, description="pets",
                            examples=["The person has a dog."])


async def _say(memory: AsyncMemory, thread: str, start: datetime, lines: list[str]) -> None:
    """Ana says each line, the coach answers; then facts are extracted."""
    turns = []
    for line in lines:
        turns += [("user", "Ana", line), ("assistant", "Coach", "I see.")]
    await memory.add_turns({"user_id": "ana", "thread_id": thread, "role": role,
                            "content": text, "speaker": speaker,
                            "created_at": start + timedelta(minutes=i)}
                           for i, (role, speaker, text) in enumerate(turns))
    await memory.extract_facts("ana", thread)


def test_profile_ids_are_deterministic() -> None:
    assert profile_id("u1") == "user_summary_u1"
    assert profile_id("u1", "Mary-Jane O'Neil") == "user_summary_u1__mary-jane-o-neil"
    assert profile_id("u1", "Élodie") == "user_summary_u1__élodie"
    assert subject_slug(" -- ") == "person"


def test_render_is_breadth_first_within_budget() -> None:
    fields = schema_fields()
    statements = [Statement(field="hobbies", text=f"Ana plays sport number {k}.",
                            fact_id=f"h{k}", order=k, score=0.9 - k / 100) for k in range(10)]
    statements.append(Statement(field="pets", text="Ana has a cat.", fact_id="p", order=99,
                                score=0.41))
    text, shown = render_profile(statements, fields, max_tokens=24)
    # breadth first: the weak pet fact gets its line before the second-best hobby
    assert text == ("Pets: Ana has a cat.\n"
                    "Hobbies: Ana plays sport number 0. Ana plays sport number 1.")
    assert count_tokens(text) <= 24
    assert [(f.name, f.facts) for f in shown] == [("pets", ["p"]), ("hobbies", ["h0", "h1"])]


def test_of_two_near_duplicates_the_newer_then_the_fuller_stays() -> None:
    def said(fid: str, text: str, order: float) -> Statement:
        return Statement(field="finances", text=text, fact_id=fid, order=order, score=0.9)

    vague = said("v", "Priya updated her budget for the house.", 2.0)
    full = said("f", "Priya's budget for the house is now $480,000.", 2.0)
    old = said("o", "Priya's budget for the house is $350,000.", 1.0)
    other = said("s", "Priya has saved $28,000 so far.", 1.0)
    for order in ([vague, full, old, other], [full, vague, other, old]):
        kept = newest_distinct(order)
        assert {s.fact_id for s in kept} == {"f", "s"}
    # kept in their given order
    assert [s.fact_id for s in newest_distinct([other, old, full])] == ["s", "f"]


async def test_current_facts_only_and_conversation_time(memory) -> None:
    await _say(memory, "t1", T0, ["I live in Leeds with my dog Rex.",
                                  "I work as a pharmacist at the city hospital."])
    step = await memory.generate_user_summary("ana")
    assert step.written == [profile_id("ana")]
    profile = await memory.get_profile("ana")
    assert profile.subject == "Ana" and "Leeds" in profile.content
    facts = {f.id: f for f in await memory.get_memories("ana", kinds=["fact"])}
    for field in profile.fields:  # every statement is one of its facts, in its words
        assert field.facts and all(facts[i].content in field.text for i in field.facts)
    # conversation time, not ingestion time
    assert profile.covers_from == T0 and profile.covers_until <= T0 + timedelta(minutes=3)
    assert not (await memory.generate_user_summary("ana")).written  # nothing changed

    # a later session moves Ana; the old fact is retired (as reconciliation does) and leaves
    later = T0 + timedelta(days=40)
    await _say(memory, "t2", later, ["I moved to York last week."])
    leeds = next(f for f in facts.values() if "Leeds" in f.content)
    york = next(f for f in await memory.get_memories("ana", kinds=["fact"])
                if "York" in f.content)
    await memory.components.write([supersede(leeds, york.id, SupersedeReason.CONTRADICT, later, {})])
    assert (await memory.generate_user_summary("ana")).written == [profile_id("ana")]
    profile = await memory.get_profile("ana")
    assert "Leeds" not in profile.content and "York" in profile.content
    assert leeds.id not in profile.sources and york.id in profile.sources
    assert profile.covers_until >= later


async def test_a_plan_whose_time_is_over_leaves_the_profile(memory) -> None:
    """Read at the person's latest conversation time, a plan placed in a period already over
    ("going to a pottery fair in March 2024", said in February, read in May) is no current
    goal: the profile leaves it out and the fact stays; a plan still ahead stays in."""
    await _say(memory, "t1", T0, ["I'm going to a pottery fair in March 2024.",
                                  "I'm planning a trip to Lisbon in September 2024."])
    await _say(memory, "t2", T0 + timedelta(days=100), ["I adopted a cat named Miso."])
    await memory.generate_user_summary("ana")
    profile = await memory.get_profile("ana")
    facts = [f.content for f in await memory.get_memories("ana", kinds=["fact"])]
    assert any("pottery fair" in f for f in facts)
    assert "pottery fair" not in profile.content
    assert "Lisbon" in profile.content and "Miso" in profile.content


async def test_assistant_turns_never_reach_a_profile(memory) -> None:
    await _say(memory, "t1", T0, ["I prefer tea to coffee."])
    turns = await memory.get_thread("ana", "t1")
    advisor = next(t for t in turns if t.role.value == "assistant")
    await memory.components.write([Fact(id="fact_advice", user_id="ana", content="Ana should save "
                                 "more for her pension.", subject="Ana", evidence=[advisor.id],
                                 created_at=T0)])
    await memory.generate_user_summary("ana")
    profile = await memory.get_profile("ana")
    assert "tea" in profile.content
    assert "pension" not in profile.content and "fact_advice" not in profile.sources


async def test_custom_schema_and_bad_input(tmp_path, local_embedder) -> None:
    settings = Settings.load(store=str(tmp_path / "m.db"),
                             profile_schema=f"{__name__}:HomeProfile")
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        await _say(memory, "t1", T0, ["I live in Leeds.", "I have a dog called Rex.",
                                      "I work as a pharmacist."])
        await memory.generate_user_summary("ana")
        profile = await memory.get_profile("ana")
        assert {f.name for f in profile.fields} <= {"home", "pets"}
        assert profile.content.startswith("Home: ") and "pharmacist" not in profile.content
        with pytest.raises(EmptyContentError):
            await memory.get_profile("ana", subject="  ")
        with pytest.raises(InvalidTextError):
            await memory.get_profile("ana", subject=3)  # type: ignore[arg-type]
        assert await memory.get_profile("ana", subject="Nobody") is None
        assert (await memory.get_profile("ana", subject="ANA")).id == profile.id
    bad = Settings.load(store=str(tmp_path / "m.db"), profile_schema="no_such_module:X")
    async with AsyncMemory.open(bad, embedder=local_embedder) as memory:
        before = (await memory.get_profile("ana")).model_dump_json()
        with pytest.raises(ConfigError, match="no_such_module"):
            await memory.generate_user_summary("ana")
        await memory.add_memories("ana", [{"content": "Ana has a cat."}])
        with pytest.raises(ConfigError):
            await memory.generate_user_summary("ana")
        assert (await memory.get_profile("ana")).model_dump_json() == before


def test_default_schema_has_the_seed_fields() -> None:
    names = [f.name for f in schema_fields(PersonProfile)]
    assert names == ["name", "age", "occupation", "location", "family", "pets", "health",
                     "hobbies", "goals", "preferences", "finances"]
    assert all(isinstance(f, SchemaField) and f.prototypes for f in schema_fields())


@pytest.mark.dataset
async def test_one_profile_per_speaker_on_locomo(tmp_path, local_embedder, locomo_path) -> None:
    sample = load_locomo(locomo_path)[0]
    settings = Settings.load(store=str(tmp_path / "loc.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder) as memory:
        for session in sample.sessions[:4]:
            await memory.add_turns(session.turns)
            await memory.extract_facts(sample.sample_id, session.thread_id)
        step = await memory.generate_user_summary(sample.sample_id)
        assert len(step.written) == 2
        profiles = [await memory.get_profile(sample.sample_id, subject=name)
                    for name in sample.speakers]
        facts = {f.id: f for f in await memory.get_memories(sample.sample_id, kinds=["fact"])}
        turns = {t.id: t for s in sample.sessions[:4] for t in s.turns}
    assert all(isinstance(p, UserProfile) for p in profiles)
    assert {p.subject for p in profiles} == set(sample.speakers)
    assert {p.id for p in profiles} == {profile_id(sample.sample_id),
                                        profile_id(sample.sample_id, next(
                                            p.subject for p in profiles
                                            if p.id != profile_id(sample.sample_id)))}
    for profile in profiles:
        assert count_tokens(profile.content) <= settings.profile_max_tokens
        shown = [i for f in profile.fields for i in f.facts]
        assert shown and set(shown) <= set(profile.sources)
        for fact_id in shown:  # a speaker's profile holds only what that speaker said; a
            # short answer also cites the other speaker's question after the answer
            first, *rest = facts[fact_id].evidence
            assert turns[first].speaker == profile.subject
            assert all(turns[e].speaker == profile.subject
                       or "?" in turns[e].content for e in rest)
        labels = {f.name: f.label for f in schema_fields()}
        assert profile.content == "\n".join(f"{labels[f.name]}: {f.text}"
                                             for f in profile.fields)
        for field in profile.fields:  # the statements are the facts' own sentences
            assert field.text == " ".join(facts[i].content for i in field.facts)
        times = [turns[e].created_at for i in shown for e in facts[i].evidence]
        assert (profile.covers_from, profile.covers_until) == (min(times), max(times))
        assert profile.covers_until.year == 2023  # the conversation's time, not today's
