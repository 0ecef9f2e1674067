"""The PDF documents of the corpus: a handbook, two near-identical product manuals, an app guide
and a research report. Every inner list is one printed page, so each fact's page is known."""

from __future__ import annotations

from dataclasses import dataclass

from .blocks import Block, Bullets, H, P, PdfDoc, Scan, Table, clean


def _p(text: str) -> P:
    return P(clean(text))


# --------------------------------------------------------------------------------------------
# Employee handbook (8 pages)

HANDBOOK = PdfDoc(
    title="Fenwick Loom Ltd - Employee Handbook, 2024 edition",
    author="Fenwick Loom People team",
    pages=[
        [
            H("Employee Handbook, 2024 edition"),
            H("Welcome to Fenwick Loom", 2),
            _p("""This handbook explains how we work together at Fenwick Loom Ltd. It applies to
            every employee on a permanent or fixed-term contract, at Cinder Quay and at our service
            centre in Marlow Reach. Contractors and agency staff should read the sections on health
            and safety and on conduct, and ask their agency about everything else."""),
            H("Who we are", 2),
            _p("""Fenwick Loom was founded in 1987 by Maud Fenwick in the old rope works on Cinder
            Quay, Harrowgate Vale. For its first twelve years the company repaired industrial
            carpet-cleaning machines for hotels along the coast. The first product under our own
            name, a corded upright called the Loomster, followed in 1999."""),
            _p("""Today around 340 people work for us. We design and assemble the Aerolux range of
            cordless vacuum cleaners, and a team of twenty-two engineers builds Loomlink, the
            companion app that schedules cleaning and keeps track of filters and batteries. Most
            assembly still happens in the rope works building, which is now called Building A."""),
            H("How to use this handbook", 2),
            _p("""The handbook is reviewed every January by the People team. If something here
            conflicts with your contract, your contract wins. If something is unclear, ask your
            line manager first and the People team second; their shared mailbox is read every
            working day."""),
        ],
        [
            H("Working hours"),
            _p("""The standard full-time working week is 37.5 hours, Monday to Friday. We use
            flexible working time: you may start and finish whenever suits you within the flexible
            band of 07:30 to 19:00, as long as you are at work during core hours."""),
            _p("""At Fenwick Loom the core hours run from 10:00 to 15:30, with a lunch break of at
            least thirty minutes that you may take at any time. Production staff in Building A work
            fixed shifts instead; their shift patterns are agreed with the assembly supervisors and
            posted on the board outside the canteen."""),
            _p("""From the first Friday in June to the last Friday in August, office staff may
            finish at 15:00 on Fridays without making up the time. This summer arrangement does not
            apply to the service centre, which stays open until 17:30 all year."""),
            H("Recording time", 2),
            _p("""Office staff record their hours in the Timecard section of the intranet at least
            once a week. Overtime is paid only when your line manager approved it in advance;
            otherwise extra hours become time off in lieu, to be taken within three months."""),
        ],
        [
            H("Annual leave"),
            _p("""Full-time employees receive 27 days of paid annual leave each calendar year, in
            addition to public holidays. Part-time colleagues receive the same entitlement pro rata.
            After every three complete years of service you gain one extra day, up to a maximum of
            32 days."""),
            _p("""Book leave through the intranet at least two weeks ahead for periods longer than
            three days. Between 24 December and 2 January the assembly line closes for the winter
            shutdown, and everyone in Building A takes three of their leave days during that
            period."""),
            _p("""You may carry over up to five unused days into the next year. Carried-over days
            must be taken by 31 March; after that date they lapse unless your line manager agreed in
            writing that business needs prevented you from taking them."""),
            H("Volunteering leave", 2),
            _p("""Every employee may take two paid volunteering days each year to support a
            registered charity, a school or a community group. Several teams use these days together
            for the Harrowgate Vale beach clean in September. Volunteering days cannot be carried
            over."""),
        ],
        [
            H("Sickness absence"),
            _p("""If you are too ill to work, call or message your line manager before 09:30 on the
            first day of absence, and keep them informed at least every second day after that. An
            email to the team mailbox is not enough on its own."""),
            _p("""You may self-certify absences of up to seven calendar days by completing the
            return-to-work form on the intranet. For longer absences we need a fit note from a
            doctor."""),
            _p("""After you pass probation, occupational sick pay is paid at full salary for up to
            12 weeks in any rolling twelve-month period, followed by half salary for a further 12
            weeks. During probation you receive statutory sick pay only."""),
            H("Medical appointments", 2),
            _p("""Try to arrange routine appointments outside core hours. Where that is not
            possible, up to four hours per appointment count as paid working time; tell your line
            manager in advance."""),
        ],
        [
            H("Family leave"),
            _p("""A birth or adoptive parent who has worked here for at least 26 weeks receives 26
            weeks of leave at full pay, followed by 13 weeks at half pay. The partner of a birth or
            adoptive parent receives eight weeks at full pay, which can be taken in up to four
            blocks within the first year."""),
            _p("""Requests for flexible working after family leave are handled by the People team,
            who aim to reply within four weeks."""),
            H("Working from home"),
            _p("""Office-based roles may work from home for up to three days a week, agreed with
            the line manager. Each team chooses one anchor day when everyone is at Cinder Quay; for
            the Loomlink team this is Tuesday."""),
            _p("""When you first start working from home you can claim a one-off home office
            allowance of £300 for a chair, desk or monitor. Receipts go through the normal expenses
            process."""),
        ],
        [
            H("Equipment"),
            _p("""Laptops are replaced every four years, or sooner if they fail. Company phones are
            issued only to field service engineers and to staff on the out-of-hours rota."""),
            _p("""For a new or replacement laptop, a charger or a headset, visit the Equipment Desk
            in Building C, room C-114, between 09:00 and 12:00. Bring the old device with you; swaps
            are made on the spot when stock allows."""),
            _p("""Lost or stolen equipment must be reported to IT at once; the IT security policy
            explains how."""),
            H("Expenses"),
            _p("""Submit expense claims within 60 days of spending the money, through the expenses
            tool on the intranet, with a photo of each receipt attached. Claims approved by the 20th
            of the month are paid with that month's salary. Travel costs follow the travel policy in
            force on the date of travel."""),
        ],
        [
            H("Health and safety"),
            _p("""Everyone is responsible for their own safety and that of the people around them.
            Report hazards to your supervisor or through the safety form on the intranet."""),
            _p("""If the fire alarm sounds, leave by the nearest exit and go to the assembly point
            in the Rope Walk car park, Bay 3. Do not use the lifts and do not go back inside until a
            fire marshal tells you it is safe."""),
            _p("""The fire alarm is tested every Wednesday at 11:00 with a short ring. A continuous
            alarm at any other time means evacuate."""),
            _p("""First aiders wear green lanyards; their names are listed beside every lift.
            Record every accident, however small, in the accident book at the Building A
            reception."""),
            _p("""Safety boots and hearing protection are compulsory on the assembly floor and are
            issued free of charge by the stores team."""),
        ],
        [
            H("Conduct and ethics"),
            _p("""Any gift or hospitality from a supplier or customer worth more than £50 must be
            recorded in the gifts register within five working days. Cash gifts must always be
            refused."""),
            _p("""Questions about ethics, conflicts of interest or the gifts register go to our
            ethics officer, Orla Brennick, who sits with the legal team in Building C."""),
            H("Grievances", 2),
            _p("""Raise concerns informally with your line manager first. If that does not resolve
            the matter, send a written grievance to the People team; a meeting will be arranged
            within ten working days and you may bring a colleague or a union representative."""),
            H("Speaking up", 2),
            _p("""The confidential Speak Up line is run by an independent provider. Reports can be
            made anonymously by phone or through the web form, and nobody will be treated unfairly
            for raising a concern in good faith."""),
        ],
    ],
)


# --------------------------------------------------------------------------------------------
# Aerolux X100 and X200 manuals: the same text, different key figures.


@dataclass(frozen=True)
class _Model:
    name: str
    document: str
    battery: str
    eco: str
    boost: str
    weight: str
    bin: str
    charger: str
    charge_time: str
    filter: str
    filter_interval: str
    warranty: str


X100 = _Model(
    name="X100",
    document="FL-M-1007",
    battery="2,500 mAh",
    eco="35 minutes",
    boost="9 minutes",
    weight="1.9 kg",
    bin="0.5 litre",
    charger="CH-12",
    charge_time="3.5 hours",
    filter="AF-10",
    filter_interval="six months",
    warranty="two-year",
)

X200 = _Model(
    name="X200",
    document="FL-M-2004",
    battery="4,000 mAh",
    eco="60 minutes",
    boost="14 minutes",
    weight="2.3 kg",
    bin="0.75 litre",
    charger="CH-19",
    charge_time="4.5 hours",
    filter="AF-20",
    filter_interval="12 months",
    warranty="three-year",
)

_ERRORS = [
    "E1: battery temperature out of range. Let the appliance reach room temperature.",
    "E2: motor overload. Switch off and let the appliance cool for 30 minutes.",
    "E3: battery fault. Stop using the battery and contact a service partner.",
    "E4: airflow blocked. Check the wand, the floor head and the bin inlet for blockages.",
]


def _manual(m: _Model) -> PdfDoc:
    if m.name == "X100":
        connection = _p("""The X100 has no wireless connection. Battery and filter reminders are
        shown on the light ring only.""")
        errors = _ERRORS
        declaration: list[list[Block]] = []
        service_note = _p("""Keep your receipt: it is your proof of purchase for warranty
        claims.""")
    else:
        connection = _p("""The X200 connects to the Loomlink app over Bluetooth. The app shows the
        exact battery percentage and sends a reminder when the filter is due.""")
        errors = [
            *_ERRORS,
            "E7: brush roll jammed. Remove the brush roll and clear any tangles.",
        ]
        service_note = _p("""Keep your receipt: it is your proof of purchase for warranty claims.
        A scanned copy of the declaration of conformity follows on the next page.""")
        declaration = [
            [
                Scan(
                    [
                        "FENWICK LOOM LTD",
                        "EU DECLARATION OF CONFORMITY",
                        "",
                        "Product: Aerolux X200 cordless vacuum cleaner",
                        "Certificate number: FLD-2291-C",
                        "Notified body: Calder Test House, no. 3317",
                        "",
                        "We declare under our sole responsibility that the",
                        "product above conforms to the applicable directives.",
                        "",
                        "Signed at Harrowgate Vale, 14 May 2024",
                        "Henrietta Vos, Head of Compliance",
                    ]
                )
            ]
        ]
    return PdfDoc(
        title=f"Aerolux {m.name} User Manual ({m.document})",
        author="Fenwick Loom Ltd",
        pages=[
            [
                H(f"Aerolux {m.name} Cordless Vacuum Cleaner"),
                P(
                    f"User manual. Read this manual before first use and keep it for future "
                    f"reference. Model {m.name}, document {m.document}, 2024 edition."
                ),
                H("Important safety instructions", 2),
                _p("""Use the vacuum cleaner only for dry household cleaning as described in this
                manual. Do not pick up water or other liquids, burning cigarettes, hot ashes or fine
                building dust such as plaster."""),
                P(
                    f"Charge the battery only with the charger supplied ({m.charger}). Using "
                    "another charger may damage the battery and will void the warranty."
                ),
                _p("""Do not use the appliance if the charger cable or the battery shows any damage.
                Keep hair, loose clothing and fingers away from openings and the brush roll."""),
                _p("""Children must not play with the appliance. Cleaning and user maintenance must
                not be carried out by children without supervision."""),
                _p("""Store the appliance indoors at temperatures between 5 °C and 35 °C."""),
            ],
            [
                H("In the box"),
                Bullets(
                    [
                        f"Aerolux {m.name} main body with dust bin",
                        "Motorised floor head with soft brush roll",
                        "Crevice tool and 2-in-1 dusting brush",
                        "Wall dock with screws and wall plugs",
                        f"Charger {m.charger}",
                    ]
                ),
                H("Technical data"),
                P(
                    f"The {m.name} ships with a {m.battery} lithium-ion battery pack. In Eco mode "
                    f"a full battery gives up to {m.eco} of cleaning; in Boost mode the runtime "
                    f"drops to about {m.boost}. Runtime also depends on the floor type and the "
                    "accessory in use."
                ),
                P(
                    f"The appliance weighs {m.weight} with the floor head and wand attached. The "
                    f"dust bin holds {m.bin} and can be emptied without touching the dirt."
                ),
                _p("""The motor is brushless and needs no maintenance. The battery pack can be
                removed and replaced without tools; spare packs are sold by service partners."""),
            ],
            [
                H("Charging the battery"),
                _p("""Charge the battery fully before first use. Hang the appliance on the wall
                dock or connect the charger directly to the socket on the battery pack."""),
                P(
                    f"A full charge from empty takes about {m.charge_time}. While charging, the "
                    "light ring on the handle pulses white; it turns solid green when the battery "
                    "is full and switches off after one minute to save energy."
                ),
                _p("""If the light ring flashes amber while charging, the battery is too cold or
                too warm. Move the appliance to a room between 10 °C and 30 °C and charging will
                resume by itself."""),
                H("Battery level", 2),
                _p("""During use, the light ring shows the remaining charge in three segments.
                When the last segment flashes, about two minutes of runtime remain."""),
                connection,
            ],
            [
                H("Emptying the dust bin"),
                _p("""Empty the dust bin when the dirt reaches the MAX mark. Hold the appliance
                over a rubbish bin and press the red release lever; the bin flap opens
                downwards."""),
                H("Cleaning and replacing the filters"),
                _p("""Rinse the washable pre-filter under cold running water once a month and let
                it dry for at least 24 hours before refitting it. Never use detergent or put the
                filter in a dishwasher."""),
                P(
                    f"The HEPA filter (part {m.filter}) cannot be washed. Replace it every "
                    f"{m.filter_interval}, or sooner if the light ring shows a filter warning. "
                    "Replacement filters are available from Fenwick Loom service partners."
                ),
                H("Brush roll", 2),
                _p("""Hair and threads can wrap around the brush roll. Turn the floor head over,
                slide off the end cap with a coin, pull out the brush roll and cut any tangles with
                scissors."""),
            ],
            [
                H("Troubleshooting"),
                _p("""If the appliance stops and the light ring flashes red, an error code is shown
                on the display under the handle:"""),
                Bullets(errors),
                H("Warranty"),
                P(
                    f"Fenwick Loom gives a {m.warranty} warranty on the Aerolux {m.name} from the "
                    "date of purchase. The warranty covers defects in materials and workmanship. "
                    "It does not cover filters, brush rolls or damage caused by misuse."
                ),
                service_note,
                H("Service", 2),
                _p("""Fenwick Loom service centre, Marlow Reach, Harrowgate Vale. Telephone 01632
                960 448, Monday to Friday 08:30 to 17:30."""),
            ],
            *declaration,
        ],
    )


X100_MANUAL = _manual(X100)
X200_MANUAL = _manual(X200)


# --------------------------------------------------------------------------------------------
# Loomlink user guide (6 pages)

LOOMLINK_GUIDE = PdfDoc(
    title="Loomlink 2.4 User Guide",
    author="Fenwick Loom Ltd",
    pages=[
        [
            H("Loomlink 2.4 User Guide"),
            H("About Loomlink", 2),
            _p("""Loomlink is the companion app for Aerolux vacuum cleaners that have a wireless
            connection, currently the X200 and X300. With Loomlink you can start and stop cleaning,
            plan schedules, see the battery level and keep track of filters. This guide covers
            Loomlink 2.4."""),
            H("What you need", 2),
            _p("""Loomlink runs on phones and tablets with Android 11 or later or iOS 16 or later,
            and needs about 180 MB of free storage. Bluetooth must be switched on; a Wi-Fi
            connection is only needed to download updates."""),
            _p("""You do not need an account to use Loomlink with a single vacuum. An account is
            needed for family sharing and for moving your settings to a new phone."""),
        ],
        [
            H("Pairing a vacuum"),
            _p("""Open Loomlink and tap Add device. Then hold the power button and the Boost button
            together for six seconds until the light ring blinks blue. The app finds the vacuum
            within a few seconds."""),
            _p("""When asked, enter the six-digit pairing code. It is printed on a label under the
            dust bin; remove the bin to read it."""),
            _p("""If pairing fails, move the phone within two metres of the vacuum, make sure the
            vacuum is not charging, and try again. A vacuum can be paired with up to four phones at
            the same time."""),
            H("Renaming a vacuum", 2),
            _p("""Tap the vacuum on the home screen, then the pencil icon next to its name. Names
            can be up to 24 characters long."""),
        ],
        [
            H("Cleaning schedules"),
            _p("""A schedule starts cleaning at a set time on the days you choose. You can create up
            to 14 cleaning schedules per vacuum, for example one for weekday mornings and one for
            Saturday afternoons."""),
            _p("""The vacuum must be on its wall dock when a schedule starts. If it is not docked
            or the battery is below 30 percent, the schedule is skipped and the app tells you
            why."""),
            H("Quiet hours", 2),
            _p("""Quiet hours stop schedules and reminders from disturbing you. By default quiet
            hours run from 22:00 to 07:00; change them under Settings, Quiet hours."""),
        ],
        [
            H("Filters and battery"),
            _p("""Loomlink counts how long the vacuum has run since the last filter change and
            sends a reminder when 10 percent of filter life remains. The reminder names the filter
            part to order for your model."""),
            _p("""After fitting a new filter, tap Filter replaced on the vacuum's page to restart
            the count."""),
            H("Battery health", 2),
            _p("""The Battery health screen shows the number of full charge cycles and the
            estimated capacity compared with a new pack. When capacity falls below 70 percent the
            app suggests a replacement pack."""),
        ],
        [
            H("Family sharing"),
            _p("""On the Household plan, up to six people can belong to one household. The person
            who created the household is its Owner and can invite others as Editors or Viewers."""),
            _p("""Editors can start cleaning, change schedules and rename vacuums. Viewers can see
            the cleaning history but cannot start or stop the vacuum."""),
            _p("""To leave a household, open Settings, Household and tap Leave. The Owner cannot
            leave without first handing the Owner role to someone else."""),
        ],
        [
            H("Your data"),
            _p("""Cleaning history is kept on your phone for 90 days and then deleted
            automatically. To keep a copy, open Settings, Data, Export history; the history is
            saved as a CSV file you can open in any spreadsheet."""),
            _p("""Loomlink does not upload room maps. Maps stay on the vacuum and on the phones
            paired with it."""),
            _p("""Crash reports are sent to Fenwick Loom only if you switch on Share crash reports
            under Settings, Privacy. They never contain your name or your maps."""),
        ],
    ],
)


# --------------------------------------------------------------------------------------------
# Research report (7 pages)

NOISE_REPORT = PdfDoc(
    title="Acoustic Lab report AL-2024-07: damped motor mounts",
    author="Fenwick Loom Acoustic Lab",
    pages=[
        [
            H("Damped motor mounts for the Aerolux platform: an acoustic evaluation"),
            _p("""Report AL-2024-07, Fenwick Loom Acoustic Lab. Authors: Dr Ines Calloway and
            Tomas Reyneke. Issued 19 August 2024."""),
            H("Summary", 2),
            _p("""We compared the standard rigid motor mount of the Aerolux X200 with a prototype
            mount that isolates the motor on three silicone dampers. Fitting the prototype damped
            mount reduced the sound power level by 4.2 dB(A) on average across all floor types,
            with no measurable loss of suction."""),
            _p("""The effect was largest on carpet and smallest on hard floors. The damped mount
            adds a small cost and slightly raises motor temperature; neither is a barrier to
            production. We recommend it for the next model in the range."""),
        ],
        [
            H("1. Background"),
            _p("""In the 2023 customer survey, noise was the second most common complaint about
            the X200, after the size of the dust bin. Reviews in trade magazines made the same
            point, and two large retail partners asked for a quieter model for flats."""),
            _p("""Most of the noise of a cordless vacuum comes from the motor and the airflow
            through the cyclone. Earlier work by the lab (report AL-2022-11) showed that in the
            X200 a large share of the motor noise reaches the user as vibration of the handle
            housing rather than as airborne sound from the exhaust."""),
            _p("""Isolating the motor from the housing should therefore reduce noise without
            changing the airflow, and so without reducing suction."""),
        ],
        [
            H("2. Method"),
            _p("""Measurements were taken in the semi-anechoic chamber in room B-02 of Building C.
            Ten microphones were placed on a hemisphere of radius 1 m around the appliance, and
            the sound power level was calculated from their readings."""),
            _p("""The chamber was kept at 21 °C, plus or minus one degree. Each appliance was
            held in a fixture at the working angle of an adult user, with the floor head resting
            on a 1.2 m by 1.2 m sample of the floor under test."""),
            _p("""Suction was measured separately at the floor head with a sealed pressure box,
            before and after the acoustic measurements."""),
        ],
        [
            H("3. Test units"),
            _p("""We tested 24 production X200 units taken from the line in June 2024, twelve with
            the standard mount and twelve retrofitted with the damped mount. All units were run in
            for two hours before testing."""),
            _p("""Each unit was run in Boost mode for five minutes on each floor type before its
            measurement. Three floor types were used: short-pile carpet, oak laminate and ceramic
            tile. The order of the floor types was rotated between units."""),
            _p("""Two units with the damped mount were rejected after a damper was found to be
            fitted the wrong way round; they were replaced with spare units from the same
            batch."""),
        ],
        [
            H("4. Results"),
            _p("""Table 1 gives the mean sound power level of each group on each floor type, in
            dB(A), measured in Boost mode."""),
            Table(
                [
                    ["Floor type", "Standard mount", "Damped mount", "Reduction"],
                    ["Short-pile carpet", "79.6", "74.5", "5.1"],
                    ["Oak laminate", "77.2", "73.4", "3.8"],
                    ["Ceramic tile", "76.9", "73.2", "3.7"],
                ]
            ),
            _p("""The standard deviation within each group was below 0.6 dB(A). Suction at the
            floor head did not differ between the groups by more than the measurement error."""),
        ],
        [
            H("5. Discussion"),
            _p("""The reduction is largest on carpet, where the floor head works hardest and
            passes most vibration into the wand. On hard floors the airflow noise, which the mount
            does not affect, makes up a larger share of the total."""),
            _p("""The damped mount raises the motor winding temperature by about 3 °C in Boost
            mode, because the dampers conduct less heat into the housing. This is well within the
            motor's rating."""),
            _p("""Purchasing estimates the extra cost of the dampers and the revised bracket at
            £0.80 per appliance at the planned volumes."""),
        ],
        [
            H("6. Recommendations"),
            Bullets(
                [
                    "Adopt the damped mount for the X300 from the first production run.",
                    "Do not retrofit X200 units in the field: the gain does not justify the cost "
                    "of opening the housing.",
                    "Repeat the measurements after 500 hours of accelerated wear testing.",
                ]
            ),
            _p("""A follow-up report on the long-term behaviour of the dampers is planned for the
            first quarter of 2025."""),
        ],
    ],
)


PDFS: dict[str, PdfDoc] = {
    "handbook/employee_handbook.pdf": HANDBOOK,
    "products/aerolux_x100_manual.pdf": X100_MANUAL,
    "products/aerolux_x200_manual.pdf": X200_MANUAL,
    "loomlink/loomlink_user_guide.pdf": LOOMLINK_GUIDE,
    "research/motor_noise_study.pdf": NOISE_REPORT,
}
