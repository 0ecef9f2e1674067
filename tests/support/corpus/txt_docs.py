"""The plain-text documents of the corpus: the IT security policy, two town council minutes that
revisit the same agenda items with different outcomes, and Loomlink's known issues."""

from __future__ import annotations

from textwrap import dedent

IT_SECURITY = dedent("""\
    FENWICK LOOM LTD
    IT SECURITY POLICY
    Version 3.2 - owner: IT Service Desk - applies to all staff and contractors

    1. PURPOSE

    This policy protects the company's information, our customers' data and the Loomlink
    service. It applies to every device that connects to the company network, including
    personal phones used for company email.

    2. PASSWORDS

    Use a passphrase of at least 14 characters for your company account. Three or four
    unrelated words are easier to remember than a short password with symbols. Never reuse
    your company passphrase on another website. You do not need to change it on a schedule,
    only when you suspect that someone else knows it.

    3. MULTI-FACTOR SIGN-IN

    Multi-factor sign-in is required for email, the intranet and remote access. Use the
    authenticator app on your phone. If you do not have a smartphone, the service desk will
    issue a hardware token instead.

    4. LOCKING YOUR SCREEN

    Lock your screen whenever you leave your desk. Company laptops lock automatically after 5
    minutes of inactivity. Do not change this setting.

    5. REMOVABLE MEDIA

    USB memory sticks and external drives are blocked on company laptops, except encrypted
    Vaultkey drives issued by the IT service desk. Use the shared drives or the file transfer
    service to exchange files with suppliers.

    6. LOST OR STOLEN DEVICES

    Report a lost or stolen laptop, phone or Vaultkey drive to the IT service desk on extension
    4400 within one hour of noticing, even if you think you will find it again. Outside office
    hours, call the duty engineer on 01632 960 771. The device can then be locked and wiped
    remotely.

    7. SUSPICIOUS EMAILS

    Do not open attachments or links you were not expecting. Forward suspicious emails as an
    attachment to phish@fenwickloom.example and then delete them. The security team answers
    every report, usually within the hour.

    8. SOFTWARE

    Install software only from the company software centre. If you need something that is not
    there, raise a request with the service desk; most requests are approved within two working
    days.

    9. BREACHES

    Breaking this policy may lead to disciplinary action. If you are unsure whether something is
    allowed, ask the service desk first.
    """)


_MEMBERS = "Cllr Agnes Moyle, Cllr Rupert Daintry, Cllr Nia Castellan, Cllr Owen Pask."


def _council_header(date: str, present: str) -> str:
    return (
        "HARROWGATE VALE TOWN COUNCIL\n\n"
        f"MINUTES of the ordinary meeting of the Council held on Tuesday {date} at 19:00\n"
        "in the Council Chamber, Tanner's Lane.\n\n"
        f"PRESENT: {present},\n{_MEMBERS}\n"
        "IN ATTENDANCE: Joanna Threlfall (Town Clerk), four members of the public.\n"
    )


COUNCIL_MAY = _council_header(
    "7 May 2024",
    "Cllr Petra Ashdown (Mayor, in the chair), Cllr Wendell Ruiz (Deputy Mayor)",
) + dedent("""
    24/051 APOLOGIES
    None. All members were present.

    24/052 MINUTES
    The minutes of the meeting held on 2 April 2024 were approved and signed.

    24/053 CINDER QUAY FOOTBRIDGE
    The Clerk presented the engineers' report, which found corrosion on the north span of the
    footbridge and recommended repairs within the year. One quote had been received so far.
    RESOLVED to defer a decision on closing the footbridge until the June meeting, when a
    second quote will be available.

    24/054 ROPE WALK RESIDENTS' PARKING
    Members discussed the cost of enforcing the residents' parking zone on Rope Walk.
    RESOLVED that the annual resident permit will rise from £52 to £60 from 1 July 2024,
    subject to a four-week consultation with residents.

    24/055 ALLOTMENTS
    The allotment association had asked for a new water supply to the Marsh Road site. Members
    discussed a proposal to increase the annual rent for a full plot to £48 to pay for it. No
    decision was taken; the item will return in June.

    24/056 LIBRARY OPENING HOURS
    RESOLVED to open the library until 16:00 on Saturdays, as a trial until the end of
    September.

    24/057 COMMUNITY GRANTS
    RESOLVED to award a community grant of £2,500 to the Harrowgate Vale Sea Scouts towards a
    new sailing dinghy.

    24/058 DATE OF NEXT MEETING
    Tuesday 4 June 2024 at 19:00.

    The meeting closed at 20:41.
    """)


COUNCIL_JUNE = _council_header(
    "4 June 2024", "Cllr Wendell Ruiz (Deputy Mayor, in the chair)"
) + dedent("""
    ABSENT: Cllr Petra Ashdown (Mayor), apologies received.

    24/059 APOLOGIES
    Apologies were received from the Mayor. The Deputy Mayor took the chair.

    24/060 MINUTES
    The minutes of the meeting held on 7 May 2024 were approved and signed.

    24/061 CINDER QUAY FOOTBRIDGE
    A second quote had been received. RESOLVED to accept the quote of Calder Structural Ltd for
    £186,400 and to close the footbridge from 15 July to 30 August 2024 while the north span is
    repaired. A free shuttle ferry will run between the Quay steps and Marlow Reach during the
    closure. The Clerk will publish a public notice.

    24/062 ROPE WALK RESIDENTS' PARKING
    The consultation received 63 responses, most of them opposed to the increase. RESOLVED to
    hold the annual resident permit at £52 for a further year and to review enforcement costs
    instead.

    24/063 ALLOTMENTS
    RESOLVED to set the annual rent for a full plot at £45 from 1 October 2024, and for a half
    plot at £25. The new water supply at Marsh Road will be paid for from reserves.

    24/064 PLANNING
    Fenwick Loom Ltd's application to extend Building C on Cinder Quay (reference HV/24/0312) was
    noted. RESOLVED to respond in support of the application, asking that deliveries avoid the
    school run.

    24/065 COMMUNITY GRANTS
    RESOLVED to award a grant of £1,200 to the Quayside Choir towards their winter concert.

    24/066 DATE OF NEXT MEETING
    Tuesday 2 July 2024 at 19:00.

    The meeting closed at 21:05.
    """)


KNOWN_ISSUES = dedent("""\
    LOOMLINK 2.4 - KNOWN ISSUES
    Last updated: 17 June 2024

    This list covers problems we know about in Loomlink 2.4 and what to do until they are fixed.
    If your problem is not listed, contact support from the app under Help, Contact us.

    1. Blank widget after restarting the phone (Android)
       On some phones running Android 11 the Loomlink home-screen widget stays empty after the
       phone restarts. Workaround: remove the widget and add it again. A fix is planned for
       Loomlink 2.4.1.

    2. Semicolons in the exported history
       When the phone language is German, French or Italian, the CSV export separates columns
       with semicolons instead of commas. Most spreadsheet programs detect this automatically;
       otherwise choose the semicolon as separator when you import the file. A fix is planned
       for Loomlink 2.4.1.

    3. X200 shows 0% battery while charging
       X200 vacuums with firmware older than 3.1.8 may show a battery level of 0% while they
       charge. The battery charges normally. Update the vacuum's firmware in the app under
       Settings, Devices, Firmware.

    4. Sharing invitations expire
       Family sharing invitations expire after 72 hours for security reasons. This is by design;
       ask the household Owner to send a new invitation.

    5. Dark mode colours on the schedule screen
       In dark mode, days without a schedule are hard to tell apart from scheduled days on some
       tablets. We are reviewing the colours for a later release.
    """)


PLAINTEXT: dict[str, str] = {
    "handbook/it_security_policy.txt": IT_SECURITY,
    "council/minutes_2024-05-07.txt": COUNCIL_MAY,
    "council/minutes_2024-06-04.txt": COUNCIL_JUNE,
    "loomlink/known_issues_2.4.txt": KNOWN_ISSUES,
}
