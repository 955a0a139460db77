"""What ``git hn mcp`` tells an agent to do next, end to end: a real ``git hn mcp`` subprocess
driven over stdio by the official MCP SDK's client (``test_agent_mcp``'s harness), in a real
repository. An agent with MCP tools only was told to run CLI commands it cannot run (an agent
trial): a refusal names the tool and its arguments there, and keeps the CLI's words on the CLI.
"""

from __future__ import annotations

from agent_helpers import actor, commit_policy, policy, record, second_identity, switch
from helpers import git, hn
from test_agent_mcp import document, error, run


def test_a_refusal_names_the_tool_to_call_not_the_command(inited):
    """Another actor's memory superseded or retracted, an author challenging their own, an ID no
    verified stream holds and a commit ID given as a memory: each way out is an MCP tool call."""
    alice = actor(inited)
    bob = second_identity(inited)
    mine = record(inited, content="cache for an hour")["memoryId"]
    head = hn(inited, "memory", "show", mine, "--json").json()["projection"]["data"]["anchor"]["commit"]
    missing = "sha256:" + "0" * 64

    async def body(client):
        own = await client.call_tool("memory_challenge", {"memory": mine, "reason": "incorrect"})
        nowhere = await client.call_tool("memory_show", {"memory": missing})
        gone = await client.call_tool("memory_retract", {"memory": missing, "reason": "obsolete"})
        commit = await client.call_tool("memory_show", {"memory": head})
        switch(inited, bob)  # (each call opens the repository anew: the next ones are Bob's)
        sup = await client.call_tool("memory_supersede", {"memory": mine, "content": "cache for a minute"})
        ret = await client.call_tool("memory_retract", {"memory": mine, "reason": "obsolete"})
        switch(inited, alice)
        return own, nowhere, gone, commit, sup, ret

    own, nowhere, gone, commit, sup, ret = run(inited, body, "--allow-write")
    assert error(own) == (
        f"git-hn: an author cannot challenge their own memory {mine}; to correct it, supersede it (memory_supersede "
        f"with memory {mine} and the new content), or retract it (memory_retract with memory {mine} and a reason)")
    way = ('memory_recall with lifecycle ["all"] and includeUntrusted true lists the memories this clone holds, and '
           "git hn sync REMOTE (a command, no MCP tool) imports a teammate's")
    assert error(nowhere) == f"git-hn: memory {missing} was not found in verified local or accepted streams; {way}"
    assert error(gone) == error(nowhere)
    assert error(commit).endswith(f"; {head} is a commit, not a memory: memory_recall with atCommit {head} lists "
                                  "the memories that apply there")
    cite = f'; to record your own in its place, cite it: memory_record with kind decision, atCommit HEAD, evidence ' \
        f'["memory:{mine}"] and content'  # (a supersede's other way out, in the tools' words too)
    for refused, operation in ((sup, "supersede"), (ret, "retract")):
        assert error(refused) == (
            f"git-hn: only the target author may {operation} memory {mine}; to dispute another author's memory, "
            f"challenge it: memory_challenge with memory {mine} and a reason"
            + (cite if operation == "supersede" else ""))
    # the CLI keeps the command, with the memory's ID
    assert hn(inited, "memory", "challenge", mine, "--reason", "incorrect").err.endswith(
        f"(git hn memory supersede {mine[7:19]} --content TEXT), or retract it (git hn memory retract {mine[7:19]} "
        "--reason REASON)\n")
    assert hn(inited, "memory", "show", missing).err.endswith(
        "; git hn memory log lists the IDs this clone holds, and git hn sync REMOTE imports a teammate's\n")


def test_an_actor_id_given_as_a_memory_names_the_recall_that_lists_its_memories(inited):
    """(f164) ``memory_show`` of an actor's ID, or a stream's: what it is, and the tool call that
    lists that actor's memories, every lifecycle and trust class (the CLI names ``memory log``)."""
    mine = record(inited, content="cache for an hour")
    alice, stream = mine["actor"], mine["stream"]

    async def body(client):
        return [await client.call_tool("memory_show", {"memory": given}) for given in (alice, stream)]

    as_actor, as_stream = run(inited, body)
    recall = f'memory_recall with actor ["{alice}"], lifecycle ["all"] and includeUntrusted true'
    assert error(as_actor) == (f"git-hn: memory {alice} was not found in verified local or accepted streams; {alice} "
                               f"is an actor, not a memory: {recall} lists the memories it signed")
    assert error(as_stream).endswith(f"; {stream} is a memory stream, not a memory: {recall} lists the memories of "
                                     "its owner")


def test_an_object_argument_of_the_wrong_shape_is_shown_the_shape_it_takes(inited):
    """An agent trial: ``"applicability": "descendants"`` was told only "cannot unmarshal string
    into request.applicability", and guessed at the shape."""
    async def body(client):
        return [await client.call_tool("memory_record", {"kind": "decision", "content": "x", key: value})
                for key, value in (("applicability", "descendants"), ("applicability", ["descendants"]),
                                   ("anchor", "HEAD"))]

    mode, listed, anchor = run(inited, body, "--allow-write")
    assert error(mode) == ("git-hn: record input: invalid JSON: json: cannot unmarshal string into "
                           'request.applicability; applicability must be an object, such as {"mode": "descendants"}')
    assert error(listed) == error(mode).replace("unmarshal string", "unmarshal array")
    assert error(anchor).endswith('; anchor must be an object, such as {"commit": "<full commit ID>", "paths": '
                                  '[{"path": "src/app.py"}]}')


def test_a_challenge_given_to_supersede_or_retract_says_what_it_is_and_what_to_name(inited):
    """A trial superseded a challenge's ID, to answer it, and was told only that it is not a
    record: the refusal says it is a challenge of which memory, and names that memory."""
    alice = actor(inited)
    bob = second_identity(inited)
    mine = record(inited, content="cache for an hour")["memoryId"]
    switch(inited, bob)
    challenge = hn(inited, "memory", "challenge", mine, "--reason", "incorrect", "--json").json()["memoryId"]
    switch(inited, alice)
    short = mine[7:19]

    async def body(client):
        sup = await client.call_tool("memory_supersede", {"memory": challenge, "content": "cache for a minute"})
        switch(inited, bob)
        ret = await client.call_tool("memory_retract", {"memory": challenge, "reason": "obsolete"})
        switch(inited, alice)
        return sup, ret

    sup, ret = run(inited, body, "--allow-write")
    assert error(sup) == (
        f"git-hn: supersession target {challenge} is not a memory record; it is a challenge of memory {short}, and "
        f"only a record or a supersession can be superseded; name that memory instead: memory_supersede with memory "
        f"{short} and the new content")
    assert error(ret) == (
        f"git-hn: lifecycle target {challenge} is not a memory record; it is a challenge of memory {short}, and only "
        f"a record or a supersession can be retracted; memory {short} is another author's, which only its author may "
        f"retract: memory_challenge with memory {short} and a reason disputes it")
    assert hn(inited, "memory", "supersede", challenge, "--content", "x").err == (
        f"git-hn: supersession target {challenge} is not a memory record; it is a challenge of memory {short}, and "
        f"only a record or a supersession can be superseded; name that memory instead: git hn memory supersede "
        f"{short} --content TEXT\n")


def test_the_trust_hints_of_json_and_mcp_name_the_hidden_author_with_the_full_id(inited):
    """A trial: recall's hint named who the policy hid, and the command with the full ID, but the
    JSON brief's hint and the MCP tools' hints still said ``git hn policy trust ACTOR``. They
    name them so too, and the MCP documents list the IDs in ``hiddenAuthors``."""
    alice = actor(inited)
    bob = second_identity(inited, name="Bob `Agent`")
    commit_policy(inited, policy([alice], ["decision"], alice))
    switch(inited, bob)
    record(inited, content="bob decides")
    switch(inited, alice)
    named = (f"1 memory hidden by the trust policy, signed by {bob[:12]} ({{}}, a self-chosen name); see it with {{}}, or trust its "
             f"author with git hn policy trust {bob}")
    cli = "git-hn: hint: " + named.format('"Bob `Agent`"', "--include-untrusted") + "\n"
    assert hn(inited, "memory", "recall", "--json").err == cli  # (as before)
    assert hn(inited, "memory", "brief", "--json").err == cli
    assert hn(inited, "memory", "digest", "--json").err == cli

    async def body(client):
        return [await client.call_tool(name, {}) for name in ("memory_recall", "memory_brief", "memory_digest")]

    told = named.format("`Bob \\u{60}Agent\\u{60}`", "includeUntrusted: true") + "."  # (a code span, as the brief)
    for result in run(inited, body):
        doc = document(result)
        assert doc["hint"] == told and doc["hiddenAuthors"] == [bob]


def test_an_mcp_trust_hint_tells_a_non_maintainer_what_a_maintainer_runs(inited):
    """A review of 5a94af6: the CLI's hint told a reader who is not a maintainer of the policy
    what a maintainer runs, but the MCP tools still offered it ``git hn policy trust`` itself, an
    edit of a policy it cannot change."""
    alice = actor(inited)
    bob = second_identity(inited, name="Bob")
    commit_policy(inited, policy([alice], ["decision"], alice))
    switch(inited, bob)
    record(inited, content="bob decides")

    async def body(client):
        return [await client.call_tool(name, {}) for name in ("memory_recall", "memory_brief", "memory_digest")]

    runs = f"a maintainer runs git hn policy trust {bob} and commits .hn/policy.json"
    for result in run(inited, body):
        hint = document(result)["hint"]
        assert f"to trust its author, {runs}" in hint and "or trust its author with" not in hint, hint


def test_the_markdown_brief_tells_a_non_maintainer_what_a_maintainer_runs(inited):
    """A review (S73) of a67633f: ``memory brief`` and the ``hn://brief`` resource still told a
    reader who is not a maintainer of the policy ``git hn policy trust qualifies their authors or
    kinds``, while ``--json`` and the MCP tools' hints say what a maintainer runs. A maintainer
    reading it is still offered the command itself."""
    alice = actor(inited)
    bob = second_identity(inited, name="Bob")
    commit_policy(inited, policy([alice], ["decision"], alice))
    switch(inited, bob)
    record(inited, content="bob decides")
    told = ("shows them; to qualify their authors or kinds, a maintainer runs git hn policy trust ACTOR|--kind KIND "
            "and commits .hn/policy.json\n")
    r = hn(inited, "memory", "brief")
    assert r.code == 0 and "excluded untrusted: 1\n" in r.out and told in r.out, r.out

    async def body(client):
        return await client.read_resource("hn://brief")

    assert told in run(inited, body).contents[0].text
    switch(inited, alice)
    r = hn(inited, "memory", "brief")
    assert "shows them; git hn policy trust qualifies their authors or kinds\n" in r.out, r.out


def test_the_cite_way_out_over_mcp_names_what_an_attempt_and_a_verification_need(inited):
    """A review (F93, finding 5), in the tools' words: the refused supersede's ``memory_record``
    lacked ``attemptOutcome`` for an attempt, and for a verification cited no commit tested. The
    call each names, made with its placeholders filled, signs."""
    head = hn(inited, "memory", "show", record(inited)["memoryId"], "--json").json()["projection"]["data"]["anchor"][
        "commit"]
    attempt = record(inited, "--outcome", "failed", kind="attempt", content="tried a cache")["memoryId"]
    tested = record(inited, "--evidence", f"git:{head}", kind="verification", content="tests pass")["memoryId"]
    bob = second_identity(inited)

    async def body(client):
        switch(inited, bob)
        refused = [await client.call_tool("memory_supersede", {"memory": m, "content": "bob's"})
                   for m in (attempt, tested)]
        cited = [await client.call_tool("memory_record", {
            "kind": "attempt", "attemptOutcome": "partial", "atCommit": "HEAD", "evidence": [f"memory:{attempt}"],
            "content": "bob tried it too"}), await client.call_tool("memory_record", {
                "kind": "verification", "atCommit": head, "evidence": [f"git:{head}", f"memory:{tested}"],
                "content": "bob's tests pass"})]
        return refused, cited

    refused, cited = run(inited, body, "--allow-write")
    assert error(refused[0]).endswith(
        f"; to record your own in its place, cite it: memory_record with kind attempt, attemptOutcome OUTCOME "
        f'(succeeded, failed, partial or abandoned), atCommit HEAD, evidence ["memory:{attempt}"] and content')
    assert error(refused[1]).endswith(
        f"; to record your own in its place, test a commit and cite it: memory_record with kind verification, "
        f'atCommit COMMIT, evidence ["git:COMMIT", "memory:{tested}"] and content (COMMIT: the full ID of the commit '
        "you tested)")
    assert [c.is_error for c in cited] == [False, False], [error(c) for c in cited if c.is_error]


def test_a_memory_text_or_a_bound_the_tools_refuse_says_what_is_wrong_with_it(inited):
    """f145, over MCP: a memory named by text that cannot name one says which part of the rule it
    breaks, in ``memory_show`` and the lifecycle tools alike, and a bound with a fraction or
    exponent says so (the client's JSON decoder made ``1000.0`` of ``1e3``: the words do not
    repeat the number), with the integer to write."""
    record(inited, content="the cache is warm")
    head = git(inited, "rev-parse", "HEAD")

    async def body(client):
        return [await client.call_tool(name, args) for name, args in (
            ("memory_show", {"memory": "12"}),
            ("memory_retract", {"memory": "sha256:xyz", "reason": "obsolete"}),
            ("memory_brief", {"version": 0, "maxBytes": 1e3}),
            ("memory_recall", {"version": 0, "atCommit": head, "maxRecords": 1.5}))]

    show, retract, brief, recall = run(inited, body, "--allow-write")
    assert error(show) == ("git-hn: memory 12 was not found in verified local or accepted streams; a memory is named "
                           "by its ID (sha256: and 64 lowercase hex digits) or by at least 8 of its first ones (this one "
                           "has 2 digits)")
    assert error(retract) == ("git-hn: retract input field memory must be a memory ID (sha256: and 64 hex digits, or "
                              'at least 8 of its first ones; "x" is not a lowercase hex digit)')
    assert error(brief) == ("git-hn: brief input field maxBytes must be an integer; a number with a fraction or "
                            "exponent was given: write 1000")
    assert error(recall) == ("git-hn: recall input field maxRecords must be a positive integer; 1.5 is not a whole "
                             "number")


def test_a_version_or_the_digest_bound_with_a_fraction_says_so_over_mcp(inited):
    """f151: ``"version": 0.0`` was told the bare ``must be integer 0``, where f145 made a bound
    with a fraction say so; every integer field now says it (``strictjson.integer_rule``), and
    the integer to write only when the field takes it (the digest's bound is at least 1024)."""
    head = git(inited, "rev-parse", "HEAD")

    async def body(client):
        return [await client.call_tool(name, args) for name, args in (
            ("memory_brief", {"version": 0.0}),
            ("memory_digest", {"version": 0.5}),
            ("memory_recall", {"version": 1e0, "atCommit": head}),
            ("memory_digest", {"maxBytes": 1000.0}),
            ("memory_digest", {"maxBytes": 2048.0}))]

    brief, digest, recall, small, large = run(inited, body)
    given = "a number with a fraction or exponent was given"
    assert error(brief) == f"git-hn: brief input field version must be integer 0; {given}: write 0"
    assert error(digest) == "git-hn: digest input field version must be integer 0; 0.5 is not a whole number"
    assert error(recall) == f"git-hn: recall input field version must be integer 0; {given}"  # (1: not 0)
    assert error(small) == f"git-hn: digest input field maxBytes must be an integer; {given}"
    assert error(large) == f"git-hn: digest input field maxBytes must be an integer; {given}: write 2048"
