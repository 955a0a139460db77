"""The keys the publication records of a remote that pushes elsewhere than it fetches are kept
under (``service.replication.given_record.url_key``, ``set_key``)."""

from git_hn.service.replication.given_record import plain_url, set_key, url_key


def test_a_push_url_key_survives_a_token_rotation_and_never_digests_the_password():
    """A review: the key digested the URL with its password, so a rotated token lost every record
    (each stream offered again) and the password was hashed into a file."""
    old, new = "https://alice:tok1@example.com/team.git", "https://alice:tok2@example.com/team.git"
    assert url_key("origin", old) == url_key("origin", new) == url_key("origin", "https://example.com/team.git")
    assert plain_url(old) == "https://example.com/team.git"
    assert plain_url("git@example.com:team.git") == "git@example.com:team.git"
    assert plain_url("/srv/a@b/team.git") == "/srv/a@b/team.git"


def test_a_set_of_push_urls_has_a_key_of_its_own():
    """A push URL added or removed is another set: its record starts empty (a review)."""
    one, two = "https://example.com/team.git", "https://example.com/mirror.git"
    assert set_key("origin", [one]) == url_key("origin", one)
    assert set_key("origin", [one, two]) == set_key("origin", [two, one]) != set_key("origin", [one])
    assert set_key("origin", [one]).startswith("origin ")
