"""An LLM reconciler's contradictions checked by the learned offline decision: the real
openai SDK served by ScriptedChatModel (no network), the real local embedder and WordNet."""

from __future__ import annotations

import json

from agent_memory import AsyncMemory, Settings
from agent_memory.models import Fact
from agent_memory.reasoners.openai import OpenAIReasoner
from agent_memory.reasoners.reconcile_verify import VerifiedDecision
from agent_memory.reasoners.scripted import ScriptedChatModel

from .test_reconcile import active_texts, fact


def _llm(*contradictions: tuple[str, str, str]) -> OpenAIReasoner:
    answer = {"duplicates": [], "contradictions": [
        {"first_id": a, "second_id": b, "rationale": why} for a, b, why in contradictions]}
    chat = ScriptedChatModel([json.dumps(answer)])
    return OpenAIReasoner("test-model", client=chat.async_client(), max_repairs=1)


async def test_contradictions_the_offline_decision_refutes_are_vetoed(local_embedder) -> None:
    home, same_home = fact("Ana lives in Boston.", 1), fact("Ana resides in Boston.", 2)
    hobby, sport = fact("Ana likes jazz.", 3), fact("Ana plays tennis on Sundays.", 4)
    decision = await _llm((home.id, same_home.id, "her residence changed"),
                          (hobby.id, sport.id, "hobbies differ")).reconcile(
        [home, same_home, hobby, sport])
    assert isinstance(decision, VerifiedDecision)
    assert decision.contradictions == []
    assert {(v.first_id, v.second_id) for v in decision.vetoed} == {(home.id, same_home.id),
                                                                    (hobby.id, sport.id)}
    assert all(v.rationale.startswith("vetoed: ") for v in decision.vetoed)


async def test_a_changed_attribute_of_the_same_subject_retires_the_old_fact(tmp_path,
                                                                          local_embedder) -> None:
    old, new = fact("Ana lives in Boston.", 1), fact("Ana lives in Porto.", 9)
    job = fact("Ana works as a pharmacist.", 2)
    reasoner = _llm((old.id, new.id, "residence changed"), (job.id, new.id, "job changed"))
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder, reasoner=reasoner) as memory:
        await memory.components.write([old, new, job])
        result = await memory.reconcile_memories("ana")
        assert result.contradicted == 1  # the residence, not the job
        [loser] = await memory.store.get("ana", [old.id])
        assert loser.superseded_by == new.id
        assert "verified" in loser.supersede_evidence["rationale"]
        texts = {f.content for f in await memory.get_memories("ana", kinds=["fact"])}
        assert texts == {"Ana lives in Porto.", "Ana works as a pharmacist."}


async def test_without_a_verifier_the_model_decides_alone(local_embedder) -> None:
    from agent_memory.reasoners import openai_reconcile

    home, same_home = fact("Ana lives in Boston.", 1), fact("Ana resides in Boston.", 2)
    reasoner = _llm((home.id, same_home.id, "residence changed"))
    decision = await openai_reconcile.reconcile(reasoner.structured, [home, same_home],
                                                verifier=None)
    assert len(decision.contradictions) == 1 and not isinstance(decision, VerifiedDecision)


async def test_a_contradiction_between_different_holders_is_vetoed(local_embedder) -> None:
    """The reason names the attribute, but the sister's home is not Ana's."""
    home, sister = fact("Ana lives in Lisbon.", 1), fact("Ana's sister lives in Porto.", 2)
    job, wife = fact("Ana works as a nurse.", 3), fact("Ana's wife works as a teacher.", 4)
    decision = await _llm((home.id, sister.id, "Ana's residence changed to Porto"),
                          (job.id, wife.id, "her job changed")).reconcile(
        [home, sister, job, wife])
    assert isinstance(decision, VerifiedDecision)
    assert decision.contradictions == []
    assert len(decision.vetoed) == 2
    assert all("ana's" in v.rationale.lower() for v in decision.vetoed)


def _llm_groups(*groups: tuple[list[str], str]) -> OpenAIReasoner:
    answer = {"contradictions": [], "duplicates": [
        {"fact_ids": ids, "merged_text": text, "rationale": "same claim"} for ids, text in groups]}
    chat = ScriptedChatModel([json.dumps(answer)])
    return OpenAIReasoner("test-model", client=chat.async_client(), max_repairs=1)


async def test_a_duplicate_group_of_different_claims_is_not_merged(tmp_path,
                                                                  local_embedder) -> None:
    def priya(text: str, days: float) -> Fact:
        return fact(text, days, user="priya", subject="Priya")

    retire = priya("Priya wants to retire by 60.", 1)
    pension = priya("Priya wants to raise her pension contribution to 6%.", 2)
    nurse, same = priya("Priya works as a nurse.", 3), priya("Priya is a nurse.", 4)
    reasoner = _llm_groups(
        ([retire.id, pension.id], "Priya wants to retire by 60 and raise it to 6%."),
        ([nurse.id, same.id], "Priya works as a nurse."))
    decision = await reasoner.reconcile([retire, pension, nurse, same])
    assert isinstance(decision, VerifiedDecision)
    assert [g.fact_ids for g in decision.duplicates] == [[nurse.id, same.id]]
    [vetoed] = decision.vetoed_duplicates
    assert vetoed.fact_ids == [retire.id, pension.id]
    assert vetoed.rationale.startswith("vetoed: offline P(")
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder,
                                reasoner=_llm_groups(
                                    ([retire.id, pension.id], "Priya wants both."))) as memory:
        await memory.components.write([retire, pension])
        result = await memory.reconcile_memories("priya")
        assert result.merged == 0
        texts = {f.content for f in await memory.get_memories("priya", kinds=["fact"])}
        assert texts == {retire.content, pension.content}


async def test_a_change_the_model_missed_is_adopted_from_the_offline_decision(
        tmp_path, local_embedder) -> None:
    """A small model proposed nothing for the demo's new house budget: the offline decision's
    confident contradiction retires the old budget, and only that fact."""
    def priya(text: str, days: float) -> Fact:
        return fact(text, days, user="priya", subject="Priya")

    old = priya("Priya's budget for the house is $350,000.", 1)
    saved = priya("Priya has saved $28,000 so far.", 2)
    new = priya("Priya's budget for the house is now $480,000.", 90)
    decision = await _llm().reconcile([old, saved, new])
    assert isinstance(decision, VerifiedDecision)
    assert [(c.first_id, c.second_id) for c in decision.adopted] == [(old.id, new.id)]
    assert decision.contradictions == decision.adopted
    assert decision.adopted[0].rationale.startswith("offline, not proposed by the model: ")
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder, reasoner=_llm()) as memory:
        await memory.components.write([old, saved, new])
        assert (await memory.reconcile_memories("priya")).contradicted == 1
        texts = {f.content for f in await memory.get_memories("priya", kinds=["fact"])}
        assert texts == {saved.content, new.content}


async def test_nothing_is_adopted_when_adoption_is_off_or_the_model_proposed_it(
        local_embedder) -> None:
    from agent_memory.reasoners import openai_reconcile
    from agent_memory.reasoners.reconcile_verify import Verifier

    old, new = (fact("Ana's budget for the flat is $300,000.", 1),
                fact("Ana's budget for the flat is now $420,000.", 9))
    off = await openai_reconcile.reconcile(_llm().structured, [old, new],
                                           verifier=Verifier(adopt=None))
    assert off.contradictions == []
    on = await _llm().reconcile([old, new])
    assert isinstance(on, VerifiedDecision) and len(on.adopted) == 1
    proposed = await _llm((old.id, new.id, "budget changed")).reconcile([old, new])
    assert isinstance(proposed, VerifiedDecision)
    assert len(proposed.contradictions) == 1 and proposed.adopted == []


async def test_a_paraphrase_the_model_missed_is_merged_by_the_offline_decision(
        tmp_path, local_embedder) -> None:
    """A 1.5B model left the demo's "wants to" and "plans to" buy a first home side by side:
    the offline decision's group is adopted, and only when the model grouped neither fact."""
    def priya(text: str, days: float) -> Fact:
        return fact(text, days, user="priya", subject="Priya")

    wants = priya("Priya wants to buy her first home around 2028.", 1)
    plans = priya("Priya plans to buy her first home around 2028.", 1.1)
    budget = priya("Priya's budget for the house is $350,000.", 1.2)
    nurse, same = priya("Priya works as a nurse.", 2), priya("Priya is a nurse.", 3)
    decision = await _llm().reconcile([wants, plans, budget])
    assert isinstance(decision, VerifiedDecision)
    assert [sorted(g.fact_ids) for g in decision.adopted_duplicates] == [
        sorted([wants.id, plans.id])]
    assert decision.duplicates == decision.adopted_duplicates
    assert decision.adopted_duplicates[0].merged_text in (wants.content, plans.content)
    # the model's own group stands as it wrote it; only the group it missed is adopted
    own = await _llm_groups(([wants.id, plans.id], "Priya means to buy a home around 2028.")
                            ).reconcile([wants, plans, budget, nurse, same])
    assert isinstance(own, VerifiedDecision)
    assert own.duplicates[0].merged_text == "Priya means to buy a home around 2028."
    assert [sorted(g.fact_ids) for g in own.adopted_duplicates] == [sorted([nurse.id, same.id])]
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder, reasoner=_llm()) as memory:
        await memory.components.write([wants, plans, budget])
        assert (await memory.reconcile_memories("priya")).merged == 2
        texts = {f.content for f in await memory.get_memories("priya", kinds=["fact"])}
        assert len(texts) == 2 and budget.content in texts


async def test_no_group_is_adopted_over_a_fact_of_a_contradiction(tmp_path,
                                                                  local_embedder) -> None:
    """The merged fact takes its members' earliest valid_from: adopted beside the model's
    contradiction over one of its facts, it would lose to the move its newest member came
    after, and "resides in Boston", said last, would be retired."""
    boston, porto = fact("Ana lives in Boston.", 1), fact("Ana lives in Porto.", 5)
    back = fact("Ana resides in Boston.", 9)
    decision = await _llm((boston.id, porto.id, "residence changed")).reconcile(
        [boston, porto, back])
    assert isinstance(decision, VerifiedDecision)
    assert decision.adopted_duplicates == []
    settings = Settings.load(store=str(tmp_path / "m.db"))
    async with AsyncMemory.open(settings, embedder=local_embedder, reasoner=_llm(
            (boston.id, porto.id, "residence changed"))) as memory:
        await memory.components.write([boston, porto, back])
        await memory.reconcile_memories("ana")
        assert back.content in await active_texts(memory)
