"""reconcile_memories on hand-built facts: each outcome, the audit fields, idempotence."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent_memory.errors import InvalidInputError
from agent_memory.models import Fact, SupersedeReason, new_id

T0 = datetime(2024, 3, 1, tzinfo=UTC)


def fact(text: str, days: float, *, user: str = "ana", subject: str = "Ana",
         confidence: float = 0.8, evidence: list[str] | None = None) -> Fact:
    return Fact(id=new_id("fact"), user_id=user, thread_id="t1", content=text, subject=subject,
                confidence=confidence, created_at=T0 + timedelta(days=days),
                evidence=evidence or [f"turn_{days}"])


async def put(memory, *facts: Fact) -> list[Fact]:
    return await memory.components.write(list(facts))  # as stored, with their versions


async def active_texts(memory, user: str = "ana") -> set[str]:
    return {f.content for f in await memory.get_memories(user, kinds=["fact"])}


async def test_duplicates_merge_into_one_fact_with_union_evidence(memory) -> None:
    a, b, other = await put(
        memory,
        fact("Ana lives in Lisbon.", 1, evidence=["t_a"]),
        fact("Ana resides in Lisbon.", 2, evidence=["t_b"], confidence=0.9),
        fact("Ana works as a nurse.", 3),
    )
    result = await memory.reconcile_memories("ana")
    assert result.model_dump() == {"kept": 2, "merged": 2, "contradicted": 0}
    (merged_id,) = result.merged_ids
    [merged] = await memory.store.get("ana", [merged_id])
    assert merged.content == "Ana resides in Lisbon."  # the most confident member's text
    assert merged.evidence == ["t_a", "t_b"]
    assert merged.confidence == 0.9 and merged.created_at == b.created_at
    assert sorted(merged.merged_from) == sorted([a.id, b.id])
    for original in await memory.store.get("ana", [a.id, b.id]):
        assert original.superseded_by == merged_id
        assert original.supersede_reason is SupersedeReason.DUPLICATE
        assert original.superseded_at is not None
        assert original.supersede_evidence["reasoner"] == "extractive"
    assert await active_texts(memory) == {"Ana resides in Lisbon.", other.content}


async def test_a_merge_keeps_the_text_that_holds_every_detail(memory) -> None:
    await put(memory, fact("Ana comes from Porto.", 1, confidence=0.7),
              fact("Ana is from Porto.", 2, confidence=0.9))
    result = await memory.reconcile_memories("ana")
    assert result.merged == 2
    # the text whose words hold the other's ("comes", "porto"), not the more confident one
    assert await active_texts(memory) == {"Ana comes from Porto."}


async def test_contradiction_newer_wins_and_loser_records_why(memory) -> None:
    old, new = await put(memory, fact("Ana lives in Boston.", 1), fact("Ana lives in Porto.", 9))
    result = await memory.reconcile_memories("ana")
    assert result.model_dump() == {"kept": 1, "merged": 0, "contradicted": 1}
    [loser] = await memory.store.get("ana", [old.id])
    assert loser.superseded_by == new.id
    assert loser.supersede_reason is SupersedeReason.CONTRADICT
    evidence = loser.supersede_evidence
    assert evidence["winner_rule"] == "newer" and "residence" in evidence["rationale"]
    assert await active_texts(memory) == {"Ana lives in Porto."}


async def test_confidence_breaks_a_tie_on_created_at(memory) -> None:
    low, high = await put(memory, fact("Ana is 34 years old.", 5, confidence=0.95),
                          fact("Ana is 35 years old.", 5, confidence=0.6))
    await memory.reconcile_memories("ana")
    [retired] = await memory.store.get("ana", [high.id])
    assert retired.superseded_by == low.id  # same time: the more confident fact wins
    assert retired.supersede_evidence["winner_rule"] == "higher confidence"


async def test_other_attribute_or_other_person_is_never_retired(memory) -> None:
    await put(memory, fact("Ana lives in Lisbon.", 1), fact("Ana works as a nurse.", 2),
              fact("Ana's sister lives in Porto.", 3), fact("Ana likes jazz.", 4),
              fact("Ana likes hiking.", 5))
    result = await memory.reconcile_memories("ana")
    assert result.model_dump() == {"kept": 5, "merged": 0, "contradicted": 0}


async def test_negation_is_a_contradiction(memory) -> None:
    old, new = await put(memory, fact("Ana plays the guitar.", 1),
                         fact("Ana no longer plays the guitar.", 4))
    result = await memory.reconcile_memories("ana")
    assert result.contradicted == 1
    [loser] = await memory.store.get("ana", [old.id])
    assert loser.superseded_by == new.id


async def test_duplicates_and_contradiction_in_one_pass(memory) -> None:
    *_, c = await put(memory, fact("Ana lives in Boston.", 1), fact("Ana resides in Boston.", 2),
                      fact("Ana moved to Denver.", 10))
    result = await memory.reconcile_memories("ana")
    assert (result.merged, result.contradicted) == (2, 1)
    [merged] = await memory.store.get("ana", result.merged_ids)
    assert merged.superseded_by == c.id  # the merged claim is older than the move
    assert await active_texts(memory) == {"Ana moved to Denver."}


async def test_pool_is_the_n_most_recent_and_rerun_changes_nothing(memory) -> None:
    await put(memory, fact("Ana works as a nurse.", 1), fact("Ana works as a teacher.", 2),
              fact("Ana lives in Boston.", 3), fact("Ana lives in Porto.", 4))
    first = await memory.reconcile_memories("ana", n=2)  # only the residence facts are seen
    assert first.model_dump() == {"kept": 1, "merged": 0, "contradicted": 1}
    again = await memory.reconcile_memories("ana", n=2)
    assert again.model_dump()["contradicted"] == 0 and again.merged == 0
    with pytest.raises(InvalidInputError):
        await memory.reconcile_memories("ana", n=0)


async def test_superseded_hidden_by_default_shown_with_flag(memory) -> None:
    old, _ = await put(memory, fact("Ana lives in Boston.", 1), fact("Ana lives in Porto.", 2))
    await memory.reconcile_memories("ana")
    default = await memory.get_memories("ana", kinds=["fact"])
    everything = await memory.get_memories("ana", kinds=["fact"], include_superseded=True)
    assert old.id not in {f.id for f in default}
    assert old.id in {f.id for f in everything}
    hits = await memory.search("ana", "Boston", kinds=["fact"])
    assert old.id not in {h.record.id for h in hits}
    hits = await memory.search("ana", "Boston", kinds=["fact"], include_superseded=True)
    assert old.id in {h.record.id for h in hits}


async def test_interrupted_merge_is_rolled_forward(memory) -> None:
    a, b = await put(memory, fact("Ana lives in Lisbon.", 1), fact("Ana resides in Lisbon.", 2))
    merged = fact("Ana resides in Lisbon.", 2)
    merged.merged_from = [a.id, b.id]
    await put(memory, merged)  # a crash after the merged fact, before the sources moved
    result = await memory.reconcile_memories("ana")
    assert sorted(result.rolled_forward) == sorted([a.id, b.id])
    assert result.merged_ids == []  # completed, not merged again
    assert {f.id for f in await memory.get_memories("ana", kinds=["fact"])} == {merged.id}


async def test_users_are_reconciled_separately(memory) -> None:
    await put(memory, fact("Ana lives in Boston.", 1), fact("Bo lives in Porto.", 2, user="bo",
                                                            subject="Bo"))
    await put(memory, fact("Bo lives in Oslo.", 3, user="bo", subject="Bo"))
    assert (await memory.reconcile_memories("ana")).contradicted == 0
    assert (await memory.reconcile_memories("bo")).contradicted == 1
