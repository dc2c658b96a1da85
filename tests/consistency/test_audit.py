"""History and restore: the audit trail of reconciliation, and undoing a decision."""

from __future__ import annotations

import pytest

from agent_memory.errors import InvalidInputError, RecordNotFoundError

from .test_reconcile import fact, put


async def test_history_shows_what_a_fact_replaced_and_what_replaced_it(memory) -> None:
    a, b, c = await put(memory, fact("Ana lives in Boston.", 1), fact("Ana resides in Boston.", 2),
                        fact("Ana moved to Denver.", 10))
    result = await memory.reconcile_memories("ana")
    (merged_id,) = result.merged_ids

    merged = await memory.history("ana", merged_id)
    assert {f.id for f in merged.replaced} == {a.id, b.id}
    assert [f.id for f in merged.replaced_by] == [c.id]
    assert [e.action for e in merged.events] == ["merged", "superseded"]

    original = await memory.history("ana", a.id)
    assert [f.id for f in original.replaced_by] == [merged_id, c.id]  # the whole chain
    assert original.events[-1].reason == "duplicate"

    winner = await memory.history("ana", c.id)
    assert [f.id for f in winner.replaced] == [merged_id] and winner.replaced_by == []
    assert winner.events[-1].action == "replaced"


async def test_restore_undoes_a_decision_records_it_and_pins_the_fact(memory) -> None:
    old, new = await put(memory, fact("Ana lives in Boston.", 1), fact("Ana lives in Porto.", 2))
    await memory.reconcile_memories("ana")
    restored = await memory.restore("ana", old.id)
    assert restored.active and restored.supersede_reason is None
    assert restored.pinned is True
    undo = restored.audit[-1]
    assert undo.action == "restored" and undo.evidence["by"] == new.id
    assert undo.evidence["reason"] == "contradict"
    assert old.id in {f.id for f in await memory.get_memories("ana", kinds=["fact"])}
    winner = await memory.history("ana", new.id)
    assert winner.events[-1].action == "restored" and winner.events[-1].ids == [old.id]
    # the undone decision is not made again
    assert (await memory.reconcile_memories("ana")).contradicted == 0
    assert len(await memory.get_memories("ana", kinds=["fact"])) == 2


async def test_restore_of_an_active_or_unknown_fact_is_refused(memory) -> None:
    (only,) = await put(memory, fact("Ana lives in Boston.", 1))
    with pytest.raises(InvalidInputError):
        await memory.restore("ana", only.id)
    with pytest.raises(RecordNotFoundError):
        await memory.restore("ana", "fact_missing")
    with pytest.raises(RecordNotFoundError):
        await memory.history("bo", only.id)  # another user's fact is not found
    [unchanged] = await memory.store.get("ana", [only.id])
    assert unchanged == only
