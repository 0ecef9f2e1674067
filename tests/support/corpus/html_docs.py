"""The HTML documents of the corpus, saved from web pages with their navigation, cookie banner and
scripts around the content: two releases' notes, an accessory price list, an event page and a
council notice."""

from __future__ import annotations

from textwrap import dedent, indent

_SITE_NAV = """\
<header class="site-header">
  <a class="logo" href="/">Fenwick Loom</a>
  <nav aria-label="Main">
    <ul>
      <li><a href="/">Home</a></li>
      <li><a href="/aerolux/">Aerolux vacuums</a></li>
      <li><a href="/loomlink/">Loomlink app</a></li>
      <li><a href="/support/">Support</a></li>
      <li><a href="/careers/">Careers</a></li>
    </ul>
  </nav>
  <form class="search" action="/search"><input name="q" placeholder="Search"></form>
</header>
<div class="cookie-banner" id="cookies">
  We use cookies to remember your preferences and count visits.
  <button onclick="acceptCookies()">Accept all</button> <a href="/privacy/">Settings</a>
</div>"""

_SITE_FOOTER = """\
<footer class="site-footer">
  <nav aria-label="Footer">
    <a href="/privacy/">Privacy</a> | <a href="/terms/">Terms of use</a> |
    <a href="/accessibility/">Accessibility</a> | <a href="/contact/">Contact us</a>
  </nav>
  <p>Fenwick Loom Ltd, Cinder Quay, Harrowgate Vale. Registered in England.</p>
</footer>"""

_SCRIPT = """\
<script>
  window.dataLayer = window.dataLayer || [];
  function track(){dataLayer.push(arguments);}
  track('page_view', {site: 'fenwickloom', section: document.body.dataset.section});
  function acceptCookies(){document.getElementById('cookies').remove();}
</script>"""


def _page(
    title: str, section: str, main: str, nav: str = _SITE_NAV, footer: str = _SITE_FOOTER
) -> str:
    body = "\n".join(
        [nav, "<main>", indent(dedent(main).strip(), "  "), "</main>", footer, _SCRIPT]
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en-GB">\n'
        "<head>\n"
        '<meta charset="utf-8">\n'
        f"<title>{title}</title>\n"
        '<link rel="stylesheet" href="/static/site.css">\n'
        '<script src="/static/analytics.js" async></script>\n'
        "</head>\n"
        f'<body data-section="{section}">\n'
        f"{body}\n"
        "</body>\n"
        "</html>\n"
    )


RELEASE_NOTES_2_3 = _page(
    "Loomlink 2.3 release notes | Fenwick Loom",
    "loomlink",
    """
    <nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; <a href="/loomlink/">Loomlink</a>
      &rsaquo; Release notes</nav>
    <article>
      <h1>Loomlink 2.3 release notes</h1>
      <p class="meta">Released 12 February 2024 for Android and iOS.</p>
      <h2>New</h2>
      <ul>
        <li>Room-by-room cleaning schedules: choose which rooms a schedule cleans.</li>
        <li>Quiet hours: scheduled cleaning and reminders now pause at night.</li>
        <li>Filter reminders show the part number of the filter to order.</li>
      </ul>
      <h2>Improved</h2>
      <ul>
        <li>The battery level of the X200 is shown to the nearest 1% instead of the nearest
          5%.</li>
        <li>The home screen loads faster when several vacuums are paired.</li>
      </ul>
      <h2>Fixed</h2>
      <ul>
        <li>Schedules no longer run twice on the night the clocks change.</li>
        <li>Renaming a vacuum no longer removes it from the widget.</li>
      </ul>
      <h2>Requirements</h2>
      <p>Loomlink 2.3 requires Android 10 or later or iOS 15 or later.</p>
    </article>
    <aside class="related">
      <h2>Related</h2>
      <ul><li><a href="/loomlink/guide/">User guide</a></li>
        <li><a href="/loomlink/prices/">Plans and prices</a></li></ul>
    </aside>
    """,
)


RELEASE_NOTES_2_4 = _page(
    "Loomlink 2.4 release notes | Fenwick Loom",
    "loomlink",
    """
    <nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; <a href="/loomlink/">Loomlink</a>
      &rsaquo; Release notes</nav>
    <article>
      <h1>Loomlink 2.4 release notes</h1>
      <p class="meta">Released 3 June 2024 for Android and iOS.</p>
      <h2>New</h2>
      <ul>
        <li>Family sharing: invite the other members of your household to control your
          vacuums.</li>
        <li>Export your cleaning history to a spreadsheet.</li>
        <li>Dark mode, which follows the phone's setting.</li>
        <li>Support for the Aerolux X300, ready for its launch.</li>
      </ul>
      <h2>Improved</h2>
      <ul>
        <li>Pairing a new vacuum takes about half as long.</li>
        <li>The home screen loads faster when several vacuums are paired.</li>
      </ul>
      <h2>Fixed</h2>
      <ul>
        <li>The app no longer drains the phone's battery while the vacuum is out of
          range.</li>
        <li>Renaming a vacuum no longer removes it from the widget.</li>
      </ul>
      <h2>Removed</h2>
      <ul>
        <li>The Wear OS watch tile has been withdrawn; the phone widget replaces it.</li>
      </ul>
      <h2>Requirements</h2>
      <p>Loomlink 2.4 requires Android 11 or later or iOS 16 or later.</p>
    </article>
    <aside class="related">
      <h2>Related</h2>
      <ul><li><a href="/loomlink/guide/">User guide</a></li>
        <li><a href="/loomlink/prices/">Plans and prices</a></li></ul>
    </aside>
    """,
)


_ACCESSORIES = [
    ("HEPA filter", "AF-10", "X100", "£14.99"),
    ("HEPA filter", "AF-20", "X200, X300", "£17.99"),
    ("Washable pre-filter, pack of 2", "PF-2", "All models", "£9.50"),
    ("Spare battery pack", "BP-25", "X100", "£59.00"),
    ("Spare battery pack", "BP-40", "X200", "£79.00"),
    ("Spare battery pack", "BP-50", "X300", "£89.00"),
    ("Motorised pet hair tool", "MT-7", "X200, X300", "£39.00"),
    ("Soft roller floor head", "SR-3", "All models", "£45.00"),
    ("Wall dock", "WD-1", "All models", "£19.00"),
    ("Extra-long crevice tool", "CT-60", "All models", "£8.50"),
]

_ROWS = "\n".join(
    f"      <tr><td>{part}</td><td>{code}</td><td>{fits}</td><td>{price}</td></tr>"
    for part, code, fits, price in _ACCESSORIES
)

ACCESSORY_PRICES = _page(
    "Aerolux spare parts and accessories | Fenwick Loom",
    "aerolux",
    """
    <nav class="breadcrumbs"><a href="/">Home</a> &rsaquo; <a href="/aerolux/">Aerolux</a>
      &rsaquo; Spare parts</nav>
    <h1>Spare parts and accessories</h1>
    <p>Genuine parts for the Aerolux X100, X200 and X300, sold direct from Cinder Quay. Check
      the model name on the label under the dust bin before you order.</p>
    <table class="prices">
      <thead><tr><th>Part</th><th>Code</th><th>Fits</th><th>Price</th></tr></thead>
      <tbody>
    """
    + _ROWS
    + """
      </tbody>
    </table>
    <p>Prices include VAT. Free delivery on orders over £40; otherwise delivery costs £3.95.
      Orders placed before 14:00 on a working day are dispatched the same day.</p>
    <p>Parts returned unopened within 30 days are refunded in full.</p>
    """,
)


HARVEST_SUPPER = _page(
    "Staff harvest supper 2024 | Fenwick Loom intranet",
    "intranet",
    """
    <nav class="breadcrumbs"><a href="/intranet/">Intranet</a> &rsaquo; Events</nav>
    <article class="event">
      <h1>Staff harvest supper 2024</h1>
      <p><strong>Friday 27 September 2024, from 18:30</strong></p>
      <p>The harvest supper is back in the rigging loft above Building A, with long tables,
        lanterns and the Quayside Choir. Partners and children are welcome.</p>
      <h2>Menu</h2>
      <ul>
        <li>Harbour bean salad and the canteen's own bread</li>
        <li>Slow-roast pork shoulder with cider gravy and roast potatoes</li>
        <li>Vegan main: roast squash and barley pie with greens</li>
        <li>Maud's ginger loaf with custard</li>
      </ul>
      <h2>Tickets</h2>
      <p>Tickets cost £12 for staff and partners and £5 for children under 12, paid at the
        canteen till. Booking closes on Friday 20 September; tell the canteen about any
        allergies when you book.</p>
      <p>The last shuttle bus to the station leaves Cinder Quay at 23:15.</p>
    </article>
    """,
)


_COUNCIL_NAV = """\
<header class="council-header">
  <a class="logo" href="/">Harrowgate Vale Town Council</a>
  <nav aria-label="Main">
    <ul>
      <li><a href="/">Home</a></li>
      <li><a href="/bins/">Bins and recycling</a></li>
      <li><a href="/parking/">Parking</a></li>
      <li><a href="/council/">Your council</a></li>
      <li><a href="/news/">News and notices</a></li>
    </ul>
  </nav>
</header>"""

_COUNCIL_FOOTER = """\
<footer>
  <p>Harrowgate Vale Town Council, Tanner's Lane. Open Monday to Friday, 09:00 to 16:00.</p>
  <a href="/privacy/">Privacy</a> | <a href="/accessibility/">Accessibility</a>
</footer>"""

BRIDGE_NOTICE = _page(
    "Public notice: Cinder Quay footbridge closure | Harrowgate Vale Town Council",
    "news",
    """
    <article>
      <h1>Public notice: Cinder Quay footbridge closure</h1>
      <p class="meta">Published 10 June 2024 by the Town Clerk.</p>
      <p>The Cinder Quay footbridge will be closed from 15 July to 30 August 2024 while the
        north span is repaired. The work was approved by the Council on 4 June.</p>
      <h2>Getting across</h2>
      <p>Pedestrians and cyclists should follow the signed diversion over the Tanner's Lane
        bridge, which adds about 12 minutes on foot.</p>
      <p>A free shuttle ferry runs every 20 minutes between 07:00 and 20:00, seven days a week,
        from the Quay steps to the Marlow Reach landing. Bicycles and pushchairs can be
        carried.</p>
      <h2>Questions</h2>
      <p>Contact the highways team at highways@harrowgatevale.example.</p>
    </article>
    """,
    nav=_COUNCIL_NAV,
    footer=_COUNCIL_FOOTER,
)


HTML: dict[str, str] = {
    "loomlink/release_notes_2.3.html": RELEASE_NOTES_2_3,
    "loomlink/release_notes_2.4.html": RELEASE_NOTES_2_4,
    "products/accessory_prices.html": ACCESSORY_PRICES,
    "kitchen/harvest_supper.html": HARVEST_SUPPER,
    "council/footbridge_closure_notice.html": BRIDGE_NOTICE,
}
