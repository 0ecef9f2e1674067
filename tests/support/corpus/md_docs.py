"""The Markdown documents of the corpus: two editions of the travel policy that differ in their
amounts, the Loomlink price list and the canteen cookbook."""

from __future__ import annotations

from dataclasses import dataclass
from textwrap import dedent


@dataclass(frozen=True)
class _Travel:
    year: str
    effective: str
    per_diem: str
    hotel_cap: str
    mileage: str
    rail_first: str
    flight_economy: str
    approval: str
    portal: str
    rates: list[tuple[str, str]]
    extra: str


_TRAVEL_2023 = _Travel(
    year="2023",
    effective="1 January 2023",
    per_diem="£35",
    hotel_cap="£130",
    mileage="45p per mile",
    rail_first="longer than three hours",
    flight_economy="under five hours",
    approval="£1,500",
    portal="Waymark",
    rates=[
        ("Western Europe", "£60"),
        ("Nordic countries", "£75"),
        ("North America", "£70"),
        ("Rest of the world", "£55"),
    ],
    extra="",
)

_TRAVEL_2024 = _Travel(
    year="2024",
    effective="1 February 2024",
    per_diem="£42",
    hotel_cap="£145",
    mileage="48p per mile",
    rail_first="longer than two and a half hours",
    flight_economy="under six hours",
    approval="£2,000",
    portal="Compass Desk",
    rates=[
        ("Western Europe", "£65"),
        ("Nordic countries", "£82"),
        ("North America", "£78"),
        ("Rest of the world", "£58"),
    ],
    extra="""
        ## Rail before air

        New in this edition: where a destination can be reached by train in under five hours, you
        must go by rail rather than fly, unless the train fare is more than twice the air fare.
    """,
)


def _travel(t: _Travel) -> str:
    rates = "\n".join(f"| {region:<18} | {rate:<6} |" for region, rate in t.rates)
    return (
        dedent(f"""\
        # Travel and expenses policy {t.year}

        *Fenwick Loom Ltd. Owner: Finance. In force from {t.effective}; replaces all earlier
        editions.*

        This policy covers business travel by employees of Fenwick Loom: trips to customers,
        suppliers, trade fairs and our own sites. Travel must have a clear business purpose, and
        you should choose the option that gives the best value overall, not simply the cheapest
        ticket.

        ## Booking

        Book all rail, air and hotel travel through the {t.portal} travel portal, which applies
        the limits in this policy automatically. Bookings made elsewhere are reimbursed only if
        they were cheaper than the portal's best offer for the same trip.

        Any trip costing more than {t.approval} in total needs the approval of your director
        before booking, in addition to your line manager's approval.

        ## Rail and air

        Travel by train in standard class. First class is allowed for journeys {t.rail_first}
        each way, or when the first-class fare is no more than the standard fare.

        Book economy class for flights {t.flight_economy}. For longer flights, premium economy
        may be booked with your director's approval.
        {t.extra}
        ## Cars

        Use a pool car from Cinder Quay where one is free. If you use your own car, you can
        claim {t.mileage} for business mileage, plus parking and tolls. Commuting to your usual
        place of work is not business mileage.

        ## Hotels

        Hotels are booked through the portal at up to {t.hotel_cap} per night including
        breakfast. In city centres where no hotel is available within the limit, the portal
        will ask for your line manager's approval.

        ## Meals and daily allowance

        For trips within the UK that include an overnight stay, you receive a daily allowance
        of {t.per_diem} per day for meals and incidentals. No receipts are needed for the
        allowance. Meals with customers are claimed separately with receipts.

        For trips abroad, the daily allowance depends on the destination:

        | Region             | Rate   |
        |--------------------|--------|
        """)
        + rates
        + "\n"
        + dedent(f"""
        The allowance is paid for each night away. On the day you return, you receive half the
        daily rate.

        ## Claiming

        Claim through the expenses tool within 60 days of the trip. Questions about this policy
        go to the Finance team.

        *Version {t.year}.1*
        """)
    )


TRAVEL_2023 = _travel(_TRAVEL_2023)
TRAVEL_2024 = _travel(_TRAVEL_2024)


PRICING = dedent("""\
    # Loomlink plans and prices

    Loomlink is free for one vacuum. The paid plans add more vacuums, more people and longer
    support for older phones. All plans work with every Aerolux model that has a wireless
    connection.

    | Plan      | Monthly | Yearly | Vacuums | Family sharing |
    |-----------|---------|--------|---------|----------------|
    | Free      | £0      | £0     | 1       | No             |
    | Plus      | £2.99   | £29    | 3       | No             |
    | Household | £5.49   | £54    | 8       | Yes            |

    Prices include VAT. You can switch plans at any time in the app under Settings, Plan; the
    new price applies from your next billing date.

    ## Discounts

    Students get 40% off the Plus plan with a valid university email address. Customers who
    bought an X300 receive the Household plan free for the first year; the code is in the box.

    ## Refunds and cancelling

    Annual plans can be refunded in full within 14 days of purchase. After that, cancelling
    stops the renewal but the plan stays active until the end of the paid year. Monthly plans
    can be cancelled at any time and are not refunded.

    ## Questions

    Write to the Loomlink support team from the app under Help, Contact us. We answer within
    two working days.
    """)


COOKBOOK = dedent("""\
    # The Cinder Quay Canteen Cookbook

    Recipes from the staff canteen at Fenwick Loom, collected by our head cook, Bettina Marsh.
    Many of them have been on the menu for longer than the Aerolux range has existed. Quantities
    are for home cooking unless the recipe says otherwise.

    ## Quay-side fish stew

    *Serves 6. A Friday favourite since the rope works days.*

    Ingredients:

    - 600 g smoked haddock, skinned and cut into chunks
    - 500 g mussels, cleaned
    - 2 leeks and 1 fennel bulb, sliced
    - 400 g waxy potatoes, diced
    - 1 litre fish stock and 150 ml single cream
    - a bunch of dill

    Soften the leeks and fennel in butter for ten minutes. Add the potatoes and the stock and
    simmer until the potatoes are almost tender. Add the fish and simmer for 4 minutes, then
    the mussels with the lid on until they open. Stir in the cream and the dill and serve with
    crusty bread.

    ## Harbour bean salad

    *Serves 4 as a side.*

    Mix two tins of drained butter beans with a finely chopped red onion, a handful of
    parsley, the zest and juice of one orange and four tablespoons of olive oil. Season well
    and leave for half an hour before serving so the beans take up the dressing.

    ## Barley and squash broth

    *Serves 6. Vegan.*

    Roast one butternut squash, cut into cubes, with olive oil and thyme. Meanwhile simmer
    150 g pearl barley in 1.5 litres of vegetable stock with carrot and celery for 35 minutes.
    Add the squash, a spoonful of miso and plenty of black pepper.

    ## Assembly-line chilli

    *Serves 40. The canteen quantity, cooked in the big pan on Thursdays.*

    Brown 4 kg of beef mince in batches. Fry 2 kg of onions, 12 cloves of garlic and 8 green
    peppers until soft, then add 6 tablespoons of smoked paprika, 4 of cumin and 2 of chilli
    flakes. Return the meat with 6 tins of chopped tomatoes, 6 tins of kidney beans and 2
    litres of stock. Simmer gently for two hours, stirring from the bottom so it does not
    catch. Serve with rice and soured cream.

    ## Rope Walk flapjack

    *Makes 24 squares.*

    Melt 250 g butter, 200 g light brown sugar and 6 tablespoons of golden syrup together.
    Stir in 450 g rolled oats and a pinch of salt. Press into a lined 30 x 20 cm tin. Bake at
    170 °C (150 °C fan) for 25 minutes, until golden at the edges but still soft in the
    middle. Cut into squares while warm and leave to cool in the tin.

    ## Maud's ginger loaf

    *Makes one 900 g loaf. The recipe Maud Fenwick brought to the first staff party.*

    Warm 115 g butter, 115 g dark muscovado sugar, 2 tablespoons of black treacle and 3 of
    golden syrup until melted. Beat in 2 eggs, 200 ml milk and a heaped spoon of marmalade,
    which is the secret of the loaf. Fold in 225 g self-raising flour and 2 tablespoons of
    ground ginger.

    Cover the bowl and let the batter rest overnight in the fridge; the loaf rises better and
    the ginger flavour deepens. Bake at 160 °C for 50 to 55 minutes. Wrap in baking paper and
    keep for two days before slicing.

    ## Friday fish finger sandwich

    *Serves 1, generously.*

    Four fish fingers, grilled until crisp, in a soft white roll with tartare sauce and
    shredded iceberg lettuce. The canteen makes its own tartare sauce with capers, gherkins
    and a little lemon zest.

    ## Canteen hot chocolate

    *Serves 4.*

    Heat 800 ml whole milk with 100 g chopped dark chocolate and 2 tablespoons of sugar,
    whisking until smooth. A pinch of sea salt makes it taste more of chocolate.
    """)


MARKDOWN: dict[str, str] = {
    "handbook/travel_policy_2023.md": TRAVEL_2023,
    "handbook/travel_policy_2024.md": TRAVEL_2024,
    "loomlink/plans_and_prices.md": PRICING,
    "kitchen/canteen_cookbook.md": COOKBOOK,
}
