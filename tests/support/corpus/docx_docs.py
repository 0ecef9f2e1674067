"""The Word documents of the corpus: a product range overview with a spec table, an onboarding
checklist kept as a table, and one set of minutes as a draft and as the approved version."""

from __future__ import annotations

from dataclasses import dataclass

from .blocks import Bullets, DocxDoc, H, P, Table, clean


def _p(text: str) -> P:
    return P(clean(text))


RANGE_OVERVIEW = DocxDoc(
    title="Aerolux range overview, autumn 2024",
    author="Fenwick Loom Product team",
    blocks=[
        H("Introduction"),
        _p("""This overview is for retail partners and the service team. It summarises the three
        cordless models in the Aerolux range and how they differ. Detailed figures for each model
        are in its user manual; prices are recommended retail prices including VAT."""),
        H("The models at a glance"),
        _p("""The X100 is the entry model for flats and small homes. The X200 adds a larger
        battery, a bigger dust bin and the Loomlink app. The new X300 goes on sale on 2 September
        2024. It is the first model with the damped motor mount developed by the Acoustic Lab, and
        adds a laser dust sensor. It comes in Slate Blue and Copper."""),
        Table(
            [
                ["Model", "Battery", "Weight", "Noise (Boost)", "Colours", "Retail price"],
                ["Aerolux X100", "2,500 mAh", "1.9 kg", "79 dB(A)", "Pearl White", "£179"],
                [
                    "Aerolux X200",
                    "4,000 mAh",
                    "2.3 kg",
                    "80 dB(A)",
                    "Pearl White, Graphite",
                    "£249",
                ],
                ["Aerolux X300", "5,000 mAh", "2.4 kg", "75 dB(A)", "Slate Blue, Copper", "£329"],
            ]
        ),
        H("Selling points"),
        H("Aerolux X100", 2),
        _p("""Light and simple, with a single button and no app to set up. Customers who mostly
        clean hard floors in a small home will not need more."""),
        H("Aerolux X200", 2),
        _p("""The best seller of the range. Customers value the long runtime and the app's filter
        reminders. Point out the wall dock, which charges the vacuum and holds two tools."""),
        H("Aerolux X300", 2),
        _p("""The laser dust sensor measures the dust drawn in and raises suction automatically
        on dirty patches, then lowers it again to save battery. Combined with the damped motor
        mount, this makes the X300 the quietest model we have built."""),
        H("Service and spare parts"),
        _p("""All three models use the same wall dock and the same washable pre-filter. The X300
        uses the same HEPA filter as the X200, so service partners need to stock only two filter
        types."""),
        _p("""The X300 comes with a five-year warranty on the motor and three years on the rest
        of the appliance. Warranty claims for all models go through the service centre in Marlow
        Reach."""),
    ],
)


ONBOARDING = DocxDoc(
    title="New starter onboarding checklist",
    author="Fenwick Loom People team",
    blocks=[
        _p("""Use this checklist during your first months with us. Tick each item when it is done
        and bring the checklist to your probation review. If something on the list cannot be done
        on time, tell your line manager; nobody fails probation over a missing tick."""),
        H("Before your first day"),
        Bullets(
            [
                "Return your signed contract and the new starter form to the People team.",
                "Send a photo for your building pass to the People team mailbox.",
                "Read the employee handbook and the IT security policy.",
            ]
        ),
        H("Checklist"),
        Table(
            [
                ["Task", "Who helps", "When"],
                [
                    "Collect your building pass and locker key",
                    "Security desk, Building A reception",
                    "Day 1",
                ],
                [
                    "Set up multi-factor sign-in on your laptop",
                    "IT service desk",
                    "Day 1",
                ],
                [
                    "Complete the fire safety and evacuation e-learning",
                    "Self-study on the intranet",
                    "By the end of week 1",
                ],
                [
                    "First one-to-one with your line manager",
                    "Line manager",
                    "End of week 2",
                ],
                [
                    "Shadow a shift on the assembly floor",
                    "Building A shift supervisor",
                    "Week 3",
                ],
                [
                    "Complete data protection training (module DP-101)",
                    "Self-study on the intranet",
                    "Within 30 days of starting",
                ],
                [
                    "Probation review",
                    "Line manager and People team",
                    "End of month 6",
                ],
            ]
        ),
        H("Your buddy"),
        _p("""Every new starter is paired with a buddy from another team for the first three
        months. Your buddy meets you for lunch in the canteen on your first day; the lunch is on
        the company. After that, meet at least once a fortnight."""),
        _p("""Buddies are volunteers. They can tell you where things are and who to ask, but
        questions about pay, contracts or performance belong with your line manager."""),
    ],
)


# --------------------------------------------------------------------------------------------
# Product Steering Committee minutes: the draft and the approved version differ in decisions.


@dataclass(frozen=True)
class _Minutes:
    status: str
    launch: str
    colours: str
    budget: str
    actions: list[list[str]]


_DRAFT = _Minutes(
    status="DRAFT, for comment by committee members. Not yet approved.",
    launch="""The committee agreed to launch the X300 in October 2024, after the autumn trade fair,
    so that the launch can be announced at the fair.""",
    colours="""The X300 will be offered in three colours: Slate Blue, Copper and Forest Green.""",
    budget="""The committee approved a development budget of £120,000 for Loomlink 2.4.""",
    actions=[
        ["Action", "Owner", "Due"],
        ["Prepare the retail training pack for the X300", "Sam Uriel", "31 July 2024"],
        ["Order pigment for the three X300 colours", "Priya Okonedo", "30 April 2024"],
        ["Report on the damped motor mount", "Dr Ines Calloway", "30 August 2024"],
    ],
)

_APPROVED = _Minutes(
    status="""Approved by the committee at its meeting of 11 April 2024, with the corrections to
    items 1, 2 and 3 shown below.""",
    launch="""The committee agreed to launch the X300 on 2 September 2024, ahead of the autumn trade
    fair, so that retail partners have stock for the back-to-school promotion.""",
    colours="""Forest Green is dropped because of the long lead time for the pigment; the X300 will
    be offered in Slate Blue and Copper only.""",
    budget="""The committee approved a development budget of £145,000 for Loomlink 2.4, including
    an external accessibility audit.""",
    actions=[
        ["Action", "Owner", "Due"],
        ["Prepare the retail training pack for the X300", "Sam Uriel", "28 June 2024"],
        ["Cancel the Forest Green pigment order", "Priya Okonedo", "22 March 2024"],
        ["Invite tenders for the accessibility audit", "Marcus Teale", "15 May 2024"],
        ["Report on the damped motor mount", "Dr Ines Calloway", "30 August 2024"],
    ],
)


def _minutes(m: _Minutes) -> DocxDoc:
    return DocxDoc(
        title="Product Steering Committee: minutes of the meeting of 14 March 2024",
        author="Sam Uriel",
        blocks=[
            P(clean(m.status)),
            _p("""Held in the Loft meeting room, Building A, from 14:00 to 16:10."""),
            H("Present"),
            Bullets(
                [
                    "Halvard Fenwick (Managing Director, chair)",
                    "Priya Okonedo (Head of Product)",
                    "Dr Ines Calloway (Acoustic Lab)",
                    "Marcus Teale (Loomlink engineering lead)",
                    "Gwen Aldous (Finance)",
                    "Sam Uriel (Retail partnerships, minutes)",
                ]
            ),
            H("1. Aerolux X300 launch date"),
            _p("""Priya Okonedo reported that pre-production units passed their drop and
            endurance tests in February. The factory can build stock from July. Retail partners
            have asked for a date well before the Christmas season."""),
            P(clean(m.launch)),
            H("2. X300 colours"),
            _p("""Finance noted that every additional colour adds a separate stock line for
            retailers. Sample units in each colour were shown at the meeting."""),
            P(clean(m.colours)),
            H("3. Loomlink 2.4"),
            _p("""Marcus Teale presented the plan for Loomlink 2.4: family sharing, export of the
            cleaning history and support for the X300. Release is planned for early June."""),
            P(clean(m.budget)),
            H("4. Damped motor mount"),
            _p("""Dr Calloway described early results from the Acoustic Lab. The committee asked
            for a full report on the damped mount by the end of August, so that a decision on the
            X300 production run can be taken in September."""),
            H("5. Any other business"),
            _p("""The staff harvest supper will go ahead in September as in previous years. The
            next meeting is on 11 April 2024."""),
            H("Actions"),
            Table(m.actions),
        ],
    )


STEERING_DRAFT = _minutes(_DRAFT)
STEERING_APPROVED = _minutes(_APPROVED)


DOCXS: dict[str, DocxDoc] = {
    "products/aerolux_range_overview.docx": RANGE_OVERVIEW,
    "handbook/onboarding_checklist.docx": ONBOARDING,
    "meetings/steering_committee_2024-03-14_draft.docx": STEERING_DRAFT,
    "meetings/steering_committee_2024-03-14_approved.docx": STEERING_APPROVED,
}
