"""The images of a chat history's messages: which message shows which image, in order and under
the name the user gave (``message_images``), each image once (``images``) with its file in the
images folder (engine/store/image_files.py). Called with the store's connection while it holds
its lock; a file is written or deleted only while the write lock is held, so no other writer can
remove one between its write and the row that keeps it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import replace

from engine.errors import StoreError
from engine.store.image_files import ImageFiles
from engine.store.types import Message, NewImage, StoredImage


class MessageImages:
    def __init__(self, files: ImageFiles) -> None:
        self.files = files

    def of(
        self, conn: sqlite3.Connection, where: str, args: tuple[object, ...]
    ) -> dict[int, tuple[StoredImage, ...]]:
        """The images of the messages ``where`` picks (on ``mi``, ``message_images``), by
        message, in order."""
        rows = conn.execute(
            "SELECT mi.message_id, mi.name, i.sha256, i.mime, i.width, i.height, i.size "
            "FROM message_images mi JOIN images i ON i.sha256 = mi.sha256 "
            f"WHERE {where} ORDER BY mi.message_id, mi.position",
            args,
        ).fetchall()
        found: dict[int, list[StoredImage]] = {}
        for row in rows:
            image = StoredImage(
                sha256=row["sha256"],
                mime=row["mime"],
                width=row["width"],
                height=row["height"],
                size=row["size"],
                name=row["name"],
                path=self.files.path(row["sha256"], row["mime"]),
            )
            found.setdefault(row["message_id"], []).append(image)
        return {message_id: tuple(images) for message_id, images in found.items()}

    def attach(self, conn: sqlite3.Connection, message: Message) -> Message:
        """The message with its images."""
        images = self.of(conn, "mi.message_id = ?", (message.id,)).get(message.id, ())
        return replace(message, images=images) if images else message

    def add(
        self, conn: sqlite3.Connection, msg_id: int, images: Sequence[NewImage]
    ) -> tuple[StoredImage, ...]:
        """Keep ``images`` whole and show them in message ``msg_id``, in order."""
        stored: list[StoredImage] = []
        for position, image in enumerate(images):
            digest = image.sha256
            path = self.files.write(digest, image.mime, image.data)
            conn.execute(
                "INSERT OR IGNORE INTO images (sha256, mime, width, height, size) "
                "VALUES (?, ?, ?, ?, ?)",
                (digest, image.mime, image.width, image.height, len(image.data)),
            )
            conn.execute(
                "INSERT INTO message_images (message_id, position, sha256, name) "
                "VALUES (?, ?, ?, ?)",
                (msg_id, position, digest, image.name),
            )
            stored.append(
                StoredImage(
                    digest, image.mime, image.width, image.height, len(image.data), image.name, path
                )
            )
        return tuple(stored)

    def share(self, conn: sqlite3.Connection, to_id: int, from_id: int) -> None:
        """Show the images of message ``from_id`` in message ``to_id`` too (one file each)."""
        conn.execute(
            "INSERT INTO message_images (message_id, position, sha256, name) "
            "SELECT ?, position, sha256, name FROM message_images WHERE message_id = ?",
            (to_id, from_id),
        )

    def drop_unused(self, conn: sqlite3.Connection) -> None:
        """Forget the images no message shows any more, and delete their files."""
        rows = conn.execute(
            "SELECT sha256, mime FROM images WHERE sha256 NOT IN "
            "(SELECT sha256 FROM message_images)"
        ).fetchall()
        if not rows:
            return
        conn.executemany("DELETE FROM images WHERE sha256 = ?", [(r["sha256"],) for r in rows])
        self.files.remove((r["sha256"], r["mime"]) for r in rows)

    def read(self, image: StoredImage) -> bytes:
        """The file of a stored image, as the user gave it."""
        try:
            return image.path.read_bytes()
        except OSError as exc:
            raise StoreError(
                f"The image {image.name or image.sha256[:12]} of this chat could not be read "
                f"({exc.strerror or exc}); it may have been moved or deleted from "
                f"{image.path.parent}."
            ) from exc
