"""Discovery (issue 21): list_props lists every name parse_ticks / ticks
take (every name the reference-checked tests use is among them, and every
name listed is taken); an unknown property, class, field or event name is
a ValueError naming it and the closest valid ones; parse_events(names=)
keeps exactly the events demoparser2 lists for the file
(peers/*.cs2-ref.json)."""
import glob
import json
import os

import pytest

import zdem

USED = ["X", "Y", "Z", "pitch", "yaw", "health", "team_num", "name", "steamid", "balance", "active_weapon",
        "m_angEyeAngles", "m_angEyeAngles.1", "CBodyComponent.m_cellX", "m_iHealth"]


def nuke(corpus):
    return os.path.join(corpus, "source2", "cs2_demofile-net-gotv-14065-de-nuke.dem")


def test_list_props_source2(corpus):
    for path in sorted(glob.glob(os.path.join(corpus, "source2", "cs2_*.dem"))):
        df = zdem.list_props(path)
        assert list(df.columns) == ["class", "name", "type", "reads"]
        assert set(USED) <= set(df["name"]), set(USED) - set(df["name"])
        assert df.loc[df["name"] == "health", "reads"].tolist() == ["m_iHealth"]
        assert df.loc[df["name"] == "m_iHealth", "class"].str.endswith("Pawn").any()
    team = zdem.list_props(nuke(corpus), "CCSTeam")
    assert set(team["class"]) == {"CCSTeam"} and "m_szTeamname" in set(team["name"])
    assert team.loc[team["name"] == "m_szTeamname", "type"].tolist() == ["char[129]"]


def test_every_listed_name_is_taken(corpus):
    for name in ("cs2_demofile-net-gotv-14065-de-nuke.dem", "dota2_haste-nekit-pov.dem",
                 "deadlock_demofile-net-hltv-10423-dl-midtown.dem"):
        path = os.path.join(corpus, "source2", name)
        names = sorted(set(zdem.list_props(path)["name"]))
        assert len(names) > 100
        zdem.parse_ticks(path, names, ticks=[0])  # no ValueError
    path = nuke(corpus)
    names = sorted(set(zdem.list_props(path, "CCSTeam")["name"]))
    df = zdem.parse_ticks(path, names, ticks=[10], classes="CCSTeam")
    assert len(df) == 4


def test_unknown_names_source2(corpus):
    path = nuke(corpus)
    with pytest.raises(ValueError, match=r"unknown property 'Health'; did you mean 'health', 'm_iHealth'\?"):
        zdem.parse_ticks(path, ["Health"])
    with pytest.raises(ValueError, match=r"unknown property 'bogus_prop'"):
        zdem.parse_ticks(path, ["X", "bogus_prop"])
    with pytest.raises(ValueError, match=r"unknown class 'CCSTeem'; did you mean 'CCSTeam'"):
        zdem.parse_ticks(path, ["m_iScore"], classes=["CCSTeem"])
    with pytest.raises(ValueError, match=r"unknown class 'CFoo'"):
        zdem.list_props(path, "CFoo")
    with pytest.raises(ValueError, match=r"unknown event 'player_deth'; did you mean 'player_death'"):
        zdem.parse_events(path, names=["player_deth"])


def test_event_names(corpus):
    for ref_path in sorted(glob.glob(os.path.join(corpus, "peers", "cs2_*.cs2-ref.json"))):
        ref = json.load(open(ref_path))
        path = os.path.join(corpus, "source2", ref["file"])
        every = zdem.parse_events(path)
        df = zdem.parse_events(path, names=ref["game_events"])
        assert set(df["event_name"]) == set(ref["game_events"])
        assert len(df) == every["event_name"].isin(ref["game_events"]).sum()
    # a name of the game event list with no event: valid, no rows
    assert len(zdem.parse_events(nuke(corpus), names=["player_death"])) == 0
    chat = zdem.parse_events(os.path.join(corpus, "source2", "dota2_haste-nekit-pov.dem"), names="chat")
    assert len(chat) > 0 and set(chat["type"]) == {"chat"}


def test_quake3(corpus):
    path = os.path.join(corpus, "q3", "q3-cpma_udt-duel.dm_68")
    df = zdem.q3.list_props(path)
    assert df.equals(zdem.list_props(path))
    pairs = set(zip(df["class"], df["name"]))
    assert {("player", "commandTime"), ("player", "viewangles.1"), ("player", "stats.0"), ("entity", "eType")} <= pairs
    for cls, entities in (("player", False), ("entity", True)):
        names = sorted(n for c, n in pairs if c == cls)[:64]
        zdem.q3.ticks(path, names, every=5000, entities=entities)
    with pytest.raises(ValueError, match=r"unknown playerstate field 'viewangle'; did you mean 'viewangles'"):
        zdem.q3.ticks(path, ["viewangle"])
    with pytest.raises(ValueError, match=r"unknown class"):
        zdem.q3.list_props(path, "players")


def test_teeworlds(corpus):
    path = os.path.join(corpus, "teeworlds", "ddnet_webviewer-goat-yeyou3.demo")
    df = zdem.tw.list_props(path)
    assert df.equals(zdem.list_props(path))
    pairs = set(zip(df["class"], df["name"]))
    assert {("character", "x"), ("character", "health"), ("player_info", "score"), ("client_info", "name")} <= pairs
    assert set(zdem.tw.list_props(path, "player")["class"]) == {"player_info"}
    zdem.tw.ticks(path, sorted(n for c, n in pairs if c == "character"))
    with pytest.raises(ValueError, match=r"unknown field 'helth'; did you mean 'health'"):
        zdem.tw.ticks(path, ["helth"])
    with pytest.raises(ValueError, match=r"unknown snapshot object 'charcter'; did you mean 'character'"):
        zdem.tw.list_props(path, "charcter")
    with pytest.raises(ValueError, match=r"unknown snapshot object 'charcter'"):
        zdem.tw.ticks(path, ["x"], obj="charcter")
