"""A conversation's messages as a tree: versions of a turn, and the path that is shown.

Each message follows one other (``parent_id``; None for a first turn). Messages that follow the
same one in the same role are versions of one turn: a regenerated reply, an edited question. The
conversation shows one path, from a first turn down to its ``leaf_id``; what is sent to the model
is always that path. Flipping to another version shows the path beneath it that was written to
last, so a person finds each version as they left it.

The tree is read from one small query (ids, parents, roles, positions), so working out a path or
the versions of a 1,500-message conversation costs a fraction of a millisecond, and the messages'
text is read only for the path shown.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Node:
    id: int
    parent_id: int | None
    role: str
    position: int


@dataclass(slots=True)
class Tree:
    """The shape of one conversation (no text): enough to find paths, versions and subtrees."""

    nodes: dict[int, Node] = field(default_factory=dict)
    children: dict[int | None, list[int]] = field(default_factory=dict)  # in order of writing

    @classmethod
    def of(cls, nodes: Iterable[Node]) -> Tree:
        tree = cls()
        for node in sorted(nodes, key=lambda n: n.position):
            tree.nodes[node.id] = node
        for node in tree.nodes.values():
            # A parent that is gone (a damaged file) makes the message a first turn, not lost.
            parent = node.parent_id if node.parent_id in tree.nodes else None
            tree.children.setdefault(parent, []).append(node.id)
        return tree

    def parent(self, msg_id: int) -> int | None:
        node = self.nodes.get(msg_id)
        if node is None or node.parent_id not in self.nodes:
            return None
        return node.parent_id

    def versions(self, msg_id: int) -> tuple[int, ...]:
        """The versions of the turn ``msg_id`` is one of, in the order they were written."""
        node = self.nodes[msg_id]
        siblings = self.children.get(self.parent(msg_id), [])
        return tuple(i for i in siblings if self.nodes[i].role == node.role)

    def newest_leaf(self, msg_id: int) -> int:
        """The end of the path beneath ``msg_id`` written to last (itself when nothing follows
        it): where the person was when they left that version. A message is always written
        after the one it follows, so the newest message beneath is the end of a path."""
        return max(self.subtree(msg_id), key=lambda i: self.nodes[i].position)

    def leaf(self, stored: int | None) -> int | None:
        """The leaf to show: the stored one while it exists, else the newest message's path."""
        if stored in self.nodes:
            return stored
        if not self.nodes:
            return None
        newest = max(self.nodes.values(), key=lambda n: n.position)
        return self.newest_leaf(newest.id)

    def path(self, leaf: int | None) -> list[int]:
        """The messages from a first turn down to ``leaf``, in order."""
        out: list[int] = []
        seen: set[int] = set()
        current = leaf
        while current is not None and current in self.nodes and current not in seen:
            seen.add(current)  # a loop in a damaged file ends the walk instead of hanging it
            out.append(current)
            current = self.parent(current)
        out.reverse()
        return out

    def subtree(self, msg_id: int) -> list[int]:
        """``msg_id`` and everything that follows it, on every branch."""
        out: list[int] = []
        todo = [msg_id]
        while todo:
            current = todo.pop()
            if current in out:
                continue
            out.append(current)
            todo.extend(self.children.get(current, []))
        return out


def read_tree(conn: sqlite3.Connection, conv_id: int) -> Tree:
    rows = conn.execute(
        "SELECT id, parent_id, role, position FROM messages WHERE conversation_id = ?",
        (conv_id,),
    ).fetchall()
    return Tree.of(Node(row[0], row[1], row[2], row[3]) for row in rows)


def stored_leaf(conn: sqlite3.Connection, conv_id: int) -> int | None:
    row = conn.execute("SELECT leaf_id FROM conversations WHERE id = ?", (conv_id,)).fetchone()
    return int(row[0]) if row is not None and row[0] is not None else None


def set_leaf(conn: sqlite3.Connection, conv_id: int, leaf: int | None) -> None:
    conn.execute("UPDATE conversations SET leaf_id = ? WHERE id = ?", (leaf, conv_id))


def shown_path(conn: sqlite3.Connection, conv_id: int) -> tuple[Tree, list[int]]:
    tree = read_tree(conn, conv_id)
    return tree, tree.path(tree.leaf(stored_leaf(conn, conv_id)))


@dataclass(frozen=True, slots=True)
class DeletePlan:
    doomed: list[int]  # the messages that go
    leaf: int | None  # the end of the path shown afterwards
    followers: list[int]  # messages that stay and now follow ``adopter``
    adopter: int | None


def delete_plan(tree: Tree, msg_id: int, leaf: int | None) -> DeletePlan:
    """What deleting ``msg_id`` removes, and which path shows afterwards.

    A version of a turn that has other versions goes with everything under it, and a neighbouring
    version shows. A message without versions goes alone: what followed it follows the message
    before it, so deleting one turn from a line keeps the rest of the line, as it always did.
    """
    versions = tree.versions(msg_id)
    parent = tree.parent(msg_id)
    on_path = msg_id in tree.path(leaf)
    if len(versions) > 1:
        doomed = tree.subtree(msg_id)
        if not on_path:
            return DeletePlan(doomed, leaf, [], None)
        at = versions.index(msg_id)
        neighbour = versions[at - 1] if at > 0 else versions[at + 1]
        return DeletePlan(doomed, tree.newest_leaf(neighbour), [], None)
    followers = list(tree.children.get(msg_id, []))
    return DeletePlan([msg_id], parent if leaf == msg_id else leaf, followers, parent)
