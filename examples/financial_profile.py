"""A structured financial-client profile (seed 003's strict, schema-described profile).

Pass it as ``profile_model`` to long-term reflection; the profile's structured part is then
validated against it (``extra="forbid"``: no field outside the schema). Each list field takes
the insights of the categories named in ``insight_categories`` (the extractive reasoner fills
them deterministically; an LLM reasoner fills every field through structured outputs).

Example::

    from financial_profile import FinancialClientProfile
    await memory.run_longterm_reflection("u1", profile_model=FinancialClientProfile)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class FinancialClientProfile(BaseModel):
    """What a financial advisor keeps about a client. Update it with new information; newer
    information replaces older information it contradicts."""

    model_config = ConfigDict(extra="forbid")

    background: list[str] = Field(
        default_factory=list, max_length=10,
        description="Age, family status, occupation, where the client lives.",
        json_schema_extra={"insight_categories": ["demographics"]})
    goals: list[str] = Field(
        default_factory=list, max_length=10,
        description="Retirement age, savings targets, planned purchases, with dates.",
        json_schema_extra={"insight_categories": ["financial_goals"]})
    risk_profile: str | None = Field(
        default=None, description="The client's current risk tolerance, in one sentence.",
        json_schema_extra={"insight_categories": ["risk_profile"]})
    situation: list[str] = Field(
        default_factory=list, max_length=10,
        description="Assets, accounts, debts, income, expenses.",
        json_schema_extra={"insight_categories": ["current_situation"]})
    concerns: list[str] = Field(
        default_factory=list, max_length=10, description="Worries and open questions.",
        json_schema_extra={"insight_categories": ["concern"]})
    preferences: list[str] = Field(
        default_factory=list, max_length=10,
        description="How and how often the client likes to be advised or contacted.",
        json_schema_extra={"insight_categories": ["preference"]})
    review_frequency: Literal["monthly", "quarterly", "yearly"] | None = Field(
        default=None, description="Agreed review cadence, if any.")
