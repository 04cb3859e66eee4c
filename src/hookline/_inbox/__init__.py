"""``hookline inbox``: the paused calls of this machine's runs, answered from a browser.

    users      the people who sign in: hashed passwords, a role each (approver, viewer)
    signin     the signed session cookie and the CSRF token every form carries
    links      signed one-time links to one call and one answer
    pending    the calls waiting in the store, as the terminal prompt would show them
    answer     an answer applied by ``hookline sessions resume`` (its claim: first answer wins)
    forms      what a POST says, checked into an answer
    pages      the HTML, every value escaped
    app        the Starlette app: routes, sign-in, answers, the live stream

It lives beside the command line, the other layer that talks to people, and imports from it
(the prompt's escaping and look-alike flags, the resume lines) rather than copy them.
"""
