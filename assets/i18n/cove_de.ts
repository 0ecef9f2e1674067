<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de">
    <context>
        <name>Attachments</name>
        <message>
            <source>Images ({patterns})</source>
            <translation>Bilder ({patterns})</translation>
        </message>
        <message>
            <source>Pasted image</source>
            <translation>Eingefügtes Bild</translation>
        </message>
        <message>
            <source>Remove {name}</source>
            <translation>{name} entfernen</translation>
        </message>
    </context>
    <context>
        <name>Banner</name>
        <message>
            <source>The engine stopped unexpectedly.</source>
            <translation>Die Engine wurde unerwartet beendet.</translation>
        </message>
        <message>
            <source>The engine stopped</source>
            <translation>Die Engine wurde beendet</translation>
        </message>
        <message>
            <source>Your conversations are saved, including the reply that was being written.</source>
            <translation>Ihre Unterhaltungen sind gespeichert, einschließlich der Antwort, die gerade geschrieben wurde.</translation>
        </message>
        <message>
            <source>Show log</source>
            <translation>Protokoll anzeigen</translation>
        </message>
        <message>
            <source>Restart engine</source>
            <translation>Engine neu starten</translation>
        </message>
        <message>
            <source>The engine logged no error before it stopped.</source>
            <translation>Die Engine hat vor dem Beenden keinen Fehler protokolliert.</translation>
        </message>
        <message>
            <source>Restarting…</source>
            <translation>Wird neu gestartet…</translation>
        </message>
        <message>
            <source>Hide log</source>
            <translation>Protokoll ausblenden</translation>
        </message>
    </context>
    <context>
        <name>Chat</name>
        <message>
            <source>No documents</source>
            <translation>Keine Dokumente</translation>
        </message>
        <message>
            <source>Attach documents (PDF, Word, HTML, Markdown, text) for replies to answer from, or images (up to {n} a message); you can also drop them here</source>
            <translation>Dokumente (PDF, Word, HTML, Markdown, Text) anhängen, auf die sich Antworten stützen, oder Bilder (bis zu {n} pro Nachricht); Sie können sie auch hier ablegen</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Dateien anhängen</translation>
        </message>
        <message>
            <source>Message Cove  (Enter to send, Shift+Enter for a new line)</source>
            <translation>Nachricht an Cove  (Enter zum Senden, Shift+Enter für eine neue Zeile)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Nachricht</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Senden</translation>
        </message>
        <message>
            <source>Answer from</source>
            <translation>Antworten aus</translation>
        </message>
        <message>
            <source>Answer from a document collection: the reply cites its passages by file and page</source>
            <translation>Aus einer Dokumentensammlung antworten: Die Antwort zitiert die Textstellen mit Datei und Seite</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Stopp</translation>
        </message>
        <message>
            <source>Stop the reply (Esc)</source>
            <translation>Antwort stoppen (Esc)</translation>
        </message>
        <message>
            <source>Send (Enter)</source>
            <translation>Senden (Enter)</translation>
        </message>
        <message>
            <source>Documents and images ({patterns})</source>
            <translation>Dokumente und Bilder ({patterns})</translation>
        </message>
        <message>
            <source>Documents ({patterns})</source>
            <translation>Dokumente ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Alle Dateien (*)</translation>
        </message>
        <message>
            <source>A message takes up to {max} images: 1 was not attached.</source>
            <translation>Eine Nachricht fasst bis zu {max} Bilder: 1 Bild wurde nicht angehängt.</translation>
        </message>
        <message>
            <source>A message takes up to {max} images: {n} were not attached.</source>
            <translation>Eine Nachricht fasst bis zu {max} Bilder: {n} wurden nicht angehängt.</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>Der Chatverlauf wird noch geöffnet; versuchen Sie es gleich noch einmal.</translation>
        </message>
        <message>
            <source>That conversation was deleted.</source>
            <translation>Diese Unterhaltung wurde gelöscht.</translation>
        </message>
        <message>
            <source>Exported to {path}</source>
            <translation>Exportiert nach {path}</translation>
        </message>
        <message>
            <source>{file} could not be read as JSON: {reason}</source>
            <translation>{file} konnte nicht als JSON gelesen werden: {reason}</translation>
        </message>
        <message>
            <source>{file} was not imported: {reason}</source>
            <translation>{file} wurde nicht importiert: {reason}</translation>
        </message>
        <message>
            <source>Imported {title}</source>
            <translation>{title} importiert</translation>
        </message>
        <message>
            <source>Cove is still answering in this chat. Stop the reply (Esc), wait for it, or start a new chat meanwhile.</source>
            <translation>Cove antwortet in diesem Chat noch. Stoppen Sie die Antwort (Esc), warten Sie darauf oder beginnen Sie währenddessen einen neuen Chat.</translation>
        </message>
        <message>
            <source>Branched into a new chat: {title}</source>
            <translation>In einen neuen Chat abgezweigt: {title}</translation>
        </message>
        <message>
            <source>Loading {model}…</source>
            <translation>{model} wird geladen…</translation>
        </message>
        <message>
            <source>Waiting for the model to finish loading…</source>
            <translation>Warten, bis das Modell geladen ist…</translation>
        </message>
        <message>
            <source>Waiting for the engine to start…</source>
            <translation>Warten auf den Start der Engine…</translation>
        </message>
        <message>
            <source>Searching this chat's files…</source>
            <translation>Dateien dieses Chats werden durchsucht…</translation>
        </message>
        <message>
            <source>Searching {name}…</source>
            <translation>{name} wird durchsucht…</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Denkt nach…</translation>
        </message>
        <message>
            <source>That tool call is no longer waiting for an answer.</source>
            <translation>Dieser Werkzeugaufruf wartet nicht mehr auf eine Antwort.</translation>
        </message>
        <message>
            <source>The reply failed.</source>
            <translation>Die Antwort ist fehlgeschlagen.</translation>
        </message>
        <message>
            <source>{model} cannot see images, so this chat's images are left out of its replies. Load a vision model ({examples}) to ask about them.</source>
            <translation>{model} kann keine Bilder sehen, daher bleiben die Bilder dieses Chats in seinen Antworten unberücksichtigt. Laden Sie ein Vision-Modell ({examples}), um Fragen dazu zu stellen.</translation>
        </message>
        <message>
            <source>The conversation fills {share} of the {limit}-token context: the oldest messages will be left out soon (the system prompt is kept). Start a new chat, or load the model with a larger context.</source>
            <translation>Die Unterhaltung füllt {share} des Kontexts von {limit} Token: Die ältesten Nachrichten werden bald ausgelassen (der Systemprompt bleibt erhalten). Beginnen Sie einen neuen Chat oder laden Sie das Modell mit einem größeren Kontext.</translation>
        </message>
        <message>
            <source>{name}: {state}</source>
            <translation>{name}: {state}</translation>
        </message>
        <message>
            <source>Remove {name} from this chat</source>
            <translation>{name} aus diesem Chat entfernen</translation>
        </message>
        <message>
            <source>Answers from:</source>
            <translation>Antworten aus:</translation>
        </message>
        <message>
            <source>{error} The reply so far is kept.</source>
            <translation>{error} Die bisherige Antwort bleibt erhalten.</translation>
        </message>
        <message>
            <source>The reply to continue was deleted.</source>
            <translation>Die fortzusetzende Antwort wurde gelöscht.</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Neuer Chat</translation>
        </message>
        <message>
            <source>The reply was deleted meanwhile; nothing was written.</source>
            <translation>Die Antwort wurde inzwischen gelöscht; es wurde nichts geschrieben.</translation>
        </message>
        <message>
            <source>The disk is full, so this reply is not saved yet. It stays on screen, and Cove saves it as soon as there is room: free some space on the disk.</source>
            <translation>Die Festplatte ist voll, daher ist diese Antwort noch nicht gespeichert. Sie bleibt sichtbar, und Cove speichert sie, sobald wieder Platz ist: Geben Sie etwas Speicherplatz frei.</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>unbekannter Fehler</translation>
        </message>
        <message>
            <source>Could not save the reply: {reason}</source>
            <translation>Die Antwort konnte nicht gespeichert werden: {reason}</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>Chat-Einstellungen</translation>
        </message>
        <message>
            <source>More for this chat</source>
            <translation>Mehr zu diesem Chat</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Weitere Aktionen</translation>
        </message>
        <message>
            <source>Find a vision model</source>
            <translation>Vision-Modell suchen</translation>
        </message>
        <message>
            <source>Models › Discover, showing the models that see images</source>
            <translation>Modelle › Entdecken, mit den Modellen, die Bilder sehen</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>Rückgängig</translation>
        </message>
        <message>
            <source>Bring the deleted message back (Ctrl+Z)</source>
            <translation>Gelöschte Nachricht wiederherstellen (Ctrl+Z)</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Denken</translation>
        </message>
        <message>
            <source>Let the model think before it answers, in a reasoning section</source>
            <translation>Das Modell vor der Antwort nachdenken lassen, in einem Abschnitt mit dem Gedankengang</translation>
        </message>
        <message>
            <source>Thinking: the model reasons before it answers. Off, it answers at once, without a reasoning section (this chat's replies from now on).</source>
            <translation>Denken: Das Modell denkt nach, bevor es antwortet. Ausgeschaltet antwortet es sofort, ohne Abschnitt mit dem Gedankengang (gilt ab jetzt für die Antworten dieses Chats).</translation>
        </message>
        <message>
            <source>Reply deleted.</source>
            <translation>Antwort gelöscht.</translation>
        </message>
        <message>
            <source>Message deleted.</source>
            <translation>Nachricht gelöscht.</translation>
        </message>
        <message>
            <source>Messages</source>
            <translation>Nachrichten</translation>
        </message>
        <message>
            <source>Show earlier messages</source>
            <translation>Frühere Nachrichten anzeigen</translation>
        </message>
        <message>
            <source>Replies are written on this computer; nothing you type leaves it.</source>
            <translation>Antworten werden auf diesem Computer geschrieben; nichts, was Sie eingeben, verlässt ihn.</translation>
        </message>
        <message>
            <source>Replies are written by the engine on {where}: what you send goes there. Your chat history stays on this computer.</source>
            <translation>Antworten schreibt die Engine auf {where}: Was Sie senden, wird dorthin übertragen. Ihr Chatverlauf bleibt auf diesem Computer.</translation>
        </message>
        <message>
            <source>Ask anything.</source>
            <translation>Fragen Sie einfach los.</translation>
        </message>
        <message>
            <source>Show 1 earlier message</source>
            <translation>1 frühere Nachricht anzeigen</translation>
        </message>
        <message>
            <source>Show {n} earlier messages</source>
            <translation>{n} frühere Nachrichten anzeigen</translation>
        </message>
        <message>
            <source>You</source>
            <translation>Sie</translation>
        </message>
        <message>
            <source>There is room on the disk again: the reply that was waiting is saved.</source>
            <translation>Auf der Festplatte ist wieder Platz: Die wartende Antwort ist gespeichert.</translation>
        </message>
    </context>
    <context>
        <name>Chat header</name>
        <message>
            <source>JSON files (*.json)</source>
            <translation>JSON-Dateien (*.json)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Alle Dateien (*)</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies (Ctrl+L)</source>
            <translation>Das Modell, das die Antworten dieses Chats schreibt (Ctrl+L)</translation>
        </message>
        <message>
            <source>Another computer's engine is in use: its model is chosen in Settings › Engine</source>
            <translation>Die Engine eines anderen Computers wird verwendet: Ihr Modell wird unter Einstellungen › Engine gewählt</translation>
        </message>
        <message>
            <source>{action}: {reason}</source>
            <translation>{action}: {reason}</translation>
        </message>
        <message>
            <source>Save preset</source>
            <translation>Vorlage speichern</translation>
        </message>
        <message>
            <source>Name of the preset:</source>
            <translation>Name der Vorlage:</translation>
        </message>
        <message>
            <source>The preset was not saved</source>
            <translation>Die Vorlage wurde nicht gespeichert</translation>
        </message>
        <message>
            <source>No default was set</source>
            <translation>Es wurde kein Standard festgelegt</translation>
        </message>
        <message>
            <source>The preset was not deleted</source>
            <translation>Die Vorlage wurde nicht gelöscht</translation>
        </message>
        <message>
            <source>Import presets</source>
            <translation>Vorlagen importieren</translation>
        </message>
        <message>
            <source>The presets were not imported</source>
            <translation>Die Vorlagen wurden nicht importiert</translation>
        </message>
        <message>
            <source>Export presets</source>
            <translation>Vorlagen exportieren</translation>
        </message>
        <message>
            <source>The presets were not exported</source>
            <translation>Die Vorlagen wurden nicht exportiert</translation>
        </message>
    </context>
    <context>
        <name>Chat settings</name>
        <message>
            <source>Chat settings</source>
            <translation>Chat-Einstellungen</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Systemprompt</translation>
        </message>
        <message>
            <source>For example: You are a concise assistant.</source>
            <translation>Zum Beispiel: Du bist ein prägnanter Assistent.</translation>
        </message>
        <message>
            <source>0 always picks the likeliest word; higher is more varied.</source>
            <translation>0 wählt immer das wahrscheinlichste Wort; höhere Werte sorgen für mehr Abwechslung.</translation>
        </message>
        <message>
            <source>0 turns top-k off.</source>
            <translation>0 schaltet Top-k aus.</translation>
        </message>
        <message>
            <source>The longest reply, in tokens.</source>
            <translation>Die längste Antwort, in Token.</translation>
        </message>
        <message>
            <source>Automatic (largest that fits)</source>
            <translation>Automatisch (der größte, der passt)</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} Token</translation>
        </message>
        <message>
            <source>Applies when the model is loaded again.</source>
            <translation>Gilt, wenn das Modell neu geladen wird.</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Temperatur</translation>
        </message>
        <message>
            <source>Top-p</source>
            <translation>Top-p</translation>
        </message>
        <message>
            <source>Top-k</source>
            <translation>Top-k</translation>
        </message>
        <message>
            <source>Max tokens</source>
            <translation>Max. Token</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Kontext</translation>
        </message>
        <message>
            <source>Defaults</source>
            <translation>Standardwerte</translation>
        </message>
        <message>
            <source>Reload model</source>
            <translation>Modell neu laden</translation>
        </message>
        <message>
            <source>Load the model again with this context size</source>
            <translation>Modell mit dieser Kontextgröße neu laden</translation>
        </message>
        <message>
            <source>The model is loaded with a {n}-token context.</source>
            <translation>Das Modell ist mit einem Kontext von {n} Token geladen.</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Waiting to be read…</source>
            <translation>Wartet auf das Lesen…</translation>
        </message>
        <message>
            <source>{n} pages</source>
            <translation>{n} Seiten</translation>
        </message>
        <message>
            <source>Read</source>
            <translation>Gelesen</translation>
        </message>
        <message>
            <source>Its pages are pictures of text: turn on OCR on the Documents page</source>
            <translation>Die Seiten sind Bilder von Text: Schalten Sie OCR auf der Seite „Dokumente“ ein</translation>
        </message>
        <message>
            <source>could not be read</source>
            <translation>konnte nicht gelesen werden</translation>
        </message>
        <message>
            <source>Indexing {done} of {total} passages…</source>
            <translation>{done} von {total} Textstellen werden indexiert…</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Wird gelesen…</translation>
        </message>
    </context>
    <context>
        <name>Compare</name>
        <message>
            <source>{kind}, {size}</source>
            <translation>{kind}, {size}</translation>
        </message>
        <message>
            <source>Compare quality</source>
            <translation>Qualität vergleichen</translation>
        </message>
        <message>
            <source>Both builds of {model} answer the same {n} everyday questions, and Cove counts how often each chooses the right answer. Each build is loaded in turn; on this computer it takes a few minutes.</source>
            <translation>Beide Fassungen von {model} beantworten dieselben {n} Alltagsfragen, und Cove zählt, wie oft jede die richtige Antwort wählt. Die Fassungen werden nacheinander geladen; auf diesem Computer dauert das einige Minuten.</translation>
        </message>
        <message>
            <source>First build</source>
            <translation>Erste Fassung</translation>
        </message>
        <message>
            <source>Second build</source>
            <translation>Zweite Fassung</translation>
        </message>
        <message>
            <source>Questions answered</source>
            <translation>Beantwortete Fragen</translation>
        </message>
        <message>
            <source>Build</source>
            <translation>Fassung</translation>
        </message>
        <message>
            <source>Right answers</source>
            <translation>Richtige Antworten</translation>
        </message>
        <message>
            <source>Time</source>
            <translation>Zeit</translation>
        </message>
        <message>
            <source>Results</source>
            <translation>Ergebnisse</translation>
        </message>
        <message>
            <source>How they ran</source>
            <translation>Wie sie liefen</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Anhalten</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>Start comparing</source>
            <translation>Vergleich starten</translation>
        </message>
        <message>
            <source>Choose two different builds.</source>
            <translation>Wählen Sie zwei verschiedene Fassungen.</translation>
        </message>
        <message>
            <source>Stopping after the questions being answered…</source>
            <translation>Hält nach den gerade gestellten Fragen an…</translation>
        </message>
        <message>
            <source>Asking {build}…</source>
            <translation>Befrage {build}…</translation>
        </message>
        <message>
            <source>{acc} ± {err} %</source>
            <translation>{acc} ± {err} %</translation>
        </message>
        <message>
            <source>{s} s</source>
            <translation>{s} s</translation>
        </message>
        <message>
            <source>Stopped. Start comparing asks every question again.</source>
            <translation>Angehalten. „Vergleich starten“ stellt alle Fragen noch einmal.</translation>
        </message>
        <message>
            <source>The comparison stopped: {error}</source>
            <translation>Der Vergleich wurde abgebrochen: {error}</translation>
        </message>
        <message>
            <source>The two builds chose the same answer to {same} % of the questions.</source>
            <translation>Die beiden Fassungen wählten bei {same} % der Fragen dieselbe Antwort.</translation>
        </message>
        <message>
            <source>No difference in quality on these questions: both got the same ones right.</source>
            <translation>Kein Qualitätsunterschied bei diesen Fragen: Beide beantworteten dieselben richtig.</translation>
        </message>
        <message>
            <source>No clear difference in quality on these questions: {points} points apart, within the margin of error (± {margin} points).</source>
            <translation>Kein klarer Qualitätsunterschied bei diesen Fragen: {points} Punkte Abstand, innerhalb der Fehlermarge (± {margin} Punkte).</translation>
        </message>
        <message>
            <source>{build} got {points} points fewer right (margin of error ± {margin} points): it loses quality on these questions.</source>
            <translation>{build} beantwortete {points} Punkte weniger richtig (Fehlermarge ± {margin} Punkte): Sie verliert bei diesen Fragen an Qualität.</translation>
        </message>
        <message>
            <source>{runtime} on {device}</source>
            <translation>{runtime} auf {device}</translation>
        </message>
        <message>
            <source>flash attention on</source>
            <translation>Flash Attention an</translation>
        </message>
        <message>
            <source>flash attention off</source>
            <translation>Flash Attention aus</translation>
        </message>
        <message>
            <source>cache {type}</source>
            <translation>Cache {type}</translation>
        </message>
        <message>
            <source>batches of {n} tokens</source>
            <translation>Stapel von {n} Tokens</translation>
        </message>
        <message>
            <source>Both ran the same way: {way}.</source>
            <translation>Beide liefen gleich: {way}.</translation>
        </message>
        <message>
            <source>The builds ran differently, and part of the difference may come from that: {first} ran {a}; {second} ran {b}.</source>
            <translation>Die Varianten liefen unterschiedlich, und ein Teil des Unterschieds kann daher kommen: {first} lief mit {a}; {second} lief mit {b}.</translation>
        </message>
    </context>
    <context>
        <name>Data</name>
        <message>
            <source>daily</source>
            <translation>täglich</translation>
        </message>
        <message>
            <source>made by you</source>
            <translation>von Ihnen erstellt</translation>
        </message>
        <message>
            <source>before an upgrade</source>
            <translation>vor einer Aktualisierung</translation>
        </message>
        <message>
            <source>before a restore</source>
            <translation>vor einer Wiederherstellung</translation>
        </message>
        <message>
            <source>before a repair</source>
            <translation>vor einer Reparatur</translation>
        </message>
        <message>
            <source>before an import</source>
            <translation>vor einem Import</translation>
        </message>
        <message>
            <source>Backups</source>
            <translation>Sicherungen</translation>
        </message>
        <message>
            <source>Cove backs up your chats (with their images), presets and settings once a day, before every upgrade, and when you ask. The last 7 days and 4 weeks are kept.</source>
            <translation>Cove sichert Ihre Chats (mit ihren Bildern), Vorlagen und Einstellungen einmal täglich, vor jeder Aktualisierung und wenn Sie es wünschen. Die letzten 7 Tage und 4 Wochen werden aufbewahrt.</translation>
        </message>
        <message>
            <source>Back up now</source>
            <translation>Jetzt sichern</translation>
        </message>
        <message>
            <source>Restore this backup…</source>
            <translation>Diese Sicherung wiederherstellen…</translation>
        </message>
        <message>
            <source>Check the history</source>
            <translation>Verlauf prüfen</translation>
        </message>
        <message>
            <source>Open the backups folder</source>
            <translation>Sicherungsordner öffnen</translation>
        </message>
        <message>
            <source>Backup status</source>
            <translation>Sicherungsstatus</translation>
        </message>
        <message>
            <source>Moving to a new computer</source>
            <translation>Umzug auf einen neuen Computer</translation>
        </message>
        <message>
            <source>Export everything to one file: every chat with its versions and images, folders and pins, presets, settings, the MCP servers (without their keys) and your collections. Import it on the other computer: chats imported twice are not doubled.</source>
            <translation>Exportieren Sie alles in eine Datei: jeden Chat mit seinen Versionen und Bildern, Ordner und Anheftungen, Vorlagen, Einstellungen, die MCP-Server (ohne ihre Schlüssel) und Ihre Sammlungen. Importieren Sie sie auf dem anderen Computer: Zweimal importierte Chats werden nicht verdoppelt.</translation>
        </message>
        <message>
            <source>Export everything…</source>
            <translation>Alles exportieren…</translation>
        </message>
        <message>
            <source>Import…</source>
            <translation>Importieren…</translation>
        </message>
        <message>
            <source>{when} · {reason} · {chats} chats · {size}</source>
            <translation>{when} · {reason} · {chats} Chats · {size}</translation>
        </message>
        <message>
            <source>{count} backups, {size} in all, in {folder}.</source>
            <translation>{count} Sicherungen, insgesamt {size}, in {folder}.</translation>
        </message>
        <message>
            <source>No backup yet: the first is made today.</source>
            <translation>Noch keine Sicherung: Die erste wird heute erstellt.</translation>
        </message>
        <message>
            <source>Backing up…</source>
            <translation>Wird gesichert…</translation>
        </message>
        <message>
            <source>Backed up {chats} chats at {when}.</source>
            <translation>{chats} Chats um {when} gesichert.</translation>
        </message>
        <message>
            <source>Restore this backup?</source>
            <translation>Diese Sicherung wiederherstellen?</translation>
        </message>
        <message>
            <source>The chat history goes back to how it was at {when} ({chats} chats). The history as it is now is backed up first, so this can be undone by restoring that backup.</source>
            <translation>Der Chatverlauf kehrt zum Stand von {when} zurück ({chats} Chats). Der aktuelle Verlauf wird zuerst gesichert, sodass Sie dies durch Wiederherstellen dieser Sicherung rückgängig machen können.</translation>
        </message>
        <message>
            <source>Restoring…</source>
            <translation>Wird wiederhergestellt…</translation>
        </message>
        <message>
            <source>Restored the backup of {when}.</source>
            <translation>Die Sicherung von {when} wurde wiederhergestellt.</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>Wird geprüft…</translation>
        </message>
        <message>
            <source>The history file is damaged: {problems}. Restart Cove to repair it.</source>
            <translation>Die Verlaufsdatei ist beschädigt: {problems}. Starten Sie Cove neu, um sie zu reparieren.</translation>
        </message>
        <message>
            <source>The chat history is whole.</source>
            <translation>Der Chatverlauf ist unbeschädigt.</translation>
        </message>
        <message>
            <source>Export everything</source>
            <translation>Alles exportieren</translation>
        </message>
        <message>
            <source>Cove archives (*.zip)</source>
            <translation>Cove-Archive (*.zip)</translation>
        </message>
        <message>
            <source>Exporting…</source>
            <translation>Wird exportiert…</translation>
        </message>
        <message>
            <source>Exported {chats} chats to {path}.</source>
            <translation>{chats} Chats nach {path} exportiert.</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importieren</translation>
        </message>
        <message>
            <source>Importing…</source>
            <translation>Wird importiert…</translation>
        </message>
        <message>
            <source>Imported {added} new chats and {merged} with new turns.</source>
            <translation>{added} neue Chats importiert und {merged} um neue Beiträge ergänzt.</translation>
        </message>
    </context>
    <context>
        <name>Discover</name>
        <message>
            <source>fits on the {device}</source>
            <translation>passt auf {device}</translation>
        </message>
        <message>
            <source>tight</source>
            <translation>knapp</translation>
        </message>
        <message>
            <source>too big</source>
            <translation>zu groß</translation>
        </message>
        <message>
            <source>{k}k context</source>
            <translation>{k}k Kontext</translation>
        </message>
        <message>
            <source>Vision: reads images</source>
            <translation>Vision: liest Bilder</translation>
        </message>
        <message>
            <source>some builds need a Hugging Face token</source>
            <translation>manche Builds benötigen ein Token von Hugging Face</translation>
        </message>
        <message>
            <source>Vision</source>
            <translation>Vision</translation>
        </message>
        <message>
            <source>Reads images: its vision projector is downloaded with the model.</source>
            <translation>Liest Bilder: Der Vision-Projektor wird mit dem Modell heruntergeladen.</translation>
        </message>
        <message>
            <source>Download</source>
            <translation>Herunterladen</translation>
        </message>
        <message>
            <source>Other builds</source>
            <translation>Andere Builds</translation>
        </message>
        <message>
            <source>Checking this computer…</source>
            <translation>Dieser Computer wird geprüft…</translation>
        </message>
        <message>
            <source>about {tps} tokens/s here</source>
            <translation>hier etwa {tps} Token/s</translation>
        </message>
        <message>
            <source>Does not fit</source>
            <translation>Passt nicht</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installiert</translation>
        </message>
        <message>
            <source>Download {build} · {size}</source>
            <translation>{build} herunterladen · {size}</translation>
        </message>
        <message>
            <source>The {build} build: {size}</source>
            <translation>Der Build {build}: {size}</translation>
        </message>
        <message>
            <source>{count} downloads</source>
            <translation>{count} Downloads</translation>
        </message>
        <message>
            <source>gated: needs a Hugging Face token</source>
            <translation>zugangsbeschränkt: benötigt ein Token von Hugging Face</translation>
        </message>
        <message>
            <source>(root)</source>
            <translation>(Stammordner)</translation>
        </message>
        <message>
            <source>· about {tps} tok/s</source>
            <translation>· etwa {tps} Token/s</translation>
        </message>
        <message>
            <source>Replies at about {early} tokens/s early in a conversation, {deep} deep into a long one; reads prompts at about {prompt} tokens/s.</source>
            <translation>Antwortet mit etwa {early} Token/s zu Beginn einer Unterhaltung und mit {deep} tief in einer langen; liest Prompts mit etwa {prompt} Token/s.</translation>
        </message>
        <message>
            <source>Slower than the {tps} tokens/s you asked for.</source>
            <translation>Langsamer als die gewünschten {tps} Token/s.</translation>
        </message>
        <message>
            <source>installed</source>
            <translation>installiert</translation>
        </message>
        <message>
            <source>fits with a {n}-token context</source>
            <translation>passt mit einem Kontext von {n} Token</translation>
        </message>
        <message>
            <source>too big for this computer</source>
            <translation>zu groß für diesen Computer</translation>
        </message>
        <message>
            <source>about {tps} tok/s</source>
            <translation>etwa {tps} Token/s</translation>
        </message>
        <message>
            <source>{size} (estimated)</source>
            <translation>{size} (geschätzt)</translation>
        </message>
    </context>
    <context>
        <name>Document answers</name>
        <message>
            <source>The collection {name} no longer exists. Choose another under Answer from.</source>
            <translation>Die Sammlung {name} existiert nicht mehr. Wählen Sie unter „Antworten aus“ eine andere.</translation>
        </message>
    </context>
    <context>
        <name>Documents</name>
        <message>
            <source>Indexed</source>
            <translation>Indexiert</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>Wartet</translation>
        </message>
        <message>
            <source>Needs OCR</source>
            <translation>Benötigt OCR</translation>
        </message>
        <message>
            <source>Skipped</source>
            <translation>Übersprungen</translation>
        </message>
        <message>
            <source>{n} indexed</source>
            <translation>{n} indexiert</translation>
        </message>
        <message>
            <source>{n} waiting</source>
            <translation>{n} wartend</translation>
        </message>
        <message>
            <source>{n} needs ocr</source>
            <translation>{n} mit OCR-Bedarf</translation>
        </message>
        <message>
            <source>{n} skipped</source>
            <translation>{n} übersprungen</translation>
        </message>
        <message>
            <source>{n} cancelled</source>
            <translation>{n} abgebrochen</translation>
        </message>
        <message>
            <source>{n} unchanged</source>
            <translation>{n} unverändert</translation>
        </message>
        <message>
            <source>{n} removed</source>
            <translation>{n} entfernt</translation>
        </message>
        <message>
            <source>File</source>
            <translation>Datei</translation>
        </message>
        <message>
            <source>State</source>
            <translation>Status</translation>
        </message>
        <message>
            <source>Passages</source>
            <translation>Textstellen</translation>
        </message>
        <message>
            <source>Pages</source>
            <translation>Seiten</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>Dokumente</translation>
        </message>
        <message>
            <source>New collection…</source>
            <translation>Neue Sammlung…</translation>
        </message>
        <message>
            <source>Collections</source>
            <translation>Sammlungen</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Dateien hinzufügen…</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ordner hinzufügen…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Read scanned pages (OCR)</source>
            <translation>Gescannte Seiten lesen (OCR)</translation>
        </message>
        <message>
            <source>Read PDF pages that are pictures of text (scans) by OCR. Slower: seconds a page. Add the files again to read their scanned pages.</source>
            <translation>PDF-Seiten, die Bilder von Text sind (Scans), per OCR lesen. Langsamer: Sekunden pro Seite. Fügen Sie die Dateien erneut hinzu, um ihre gescannten Seiten zu lesen.</translation>
        </message>
        <message>
            <source>Needs Cove's OCR extra: {command}</source>
            <translation>Benötigt die OCR-Erweiterung von Cove: {command}</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Ask this collection… (Enter)</source>
            <translation>Diese Sammlung fragen… (Enter)</translation>
        </message>
        <message>
            <source>Ask this collection</source>
            <translation>Diese Sammlung fragen</translation>
        </message>
        <message>
            <source>The passages that answer it, with file and page.</source>
            <translation>Die Textstellen, die die Frage beantworten, mit Datei und Seite.</translation>
        </message>
        <message>
            <source>1 folder</source>
            <translation>1 Ordner</translation>
        </message>
        <message>
            <source>{n} folders</source>
            <translation>{n} Ordner</translation>
        </message>
        <message>
            <source>Watching {folders} · updating when this computer is idle</source>
            <translation>Überwacht {folders} · Aktualisierung, wenn dieser Computer im Leerlauf ist</translation>
        </message>
        <message>
            <source>Watching {folders} · updating…</source>
            <translation>Überwacht {folders} · wird aktualisiert…</translation>
        </message>
        <message>
            <source>Watching {folders} · up to date</source>
            <translation>Überwacht {folders} · aktuell</translation>
        </message>
        <message>
            <source>Could not update {name}: {reason}</source>
            <translation>{name} konnte nicht aktualisiert werden: {reason}</translation>
        </message>
        <message>
            <source>{state}: {reason}</source>
            <translation>{state}: {reason}</translation>
        </message>
        <message>
            <source>Make a collection, then add files or folders to it.</source>
            <translation>Erstellen Sie eine Sammlung und fügen Sie ihr dann Dateien oder Ordner hinzu.</translation>
        </message>
        <message>
            <source>Add files or folders: PDF, Word, Markdown, HTML and text.</source>
            <translation>Fügen Sie Dateien oder Ordner hinzu: PDF, Word, Markdown, HTML und Text.</translation>
        </message>
        <message>
            <source>Reading 1 item…</source>
            <translation>1 Element wird gelesen…</translation>
        </message>
        <message>
            <source>Reading {n} items…</source>
            <translation>{n} Elemente werden gelesen…</translation>
        </message>
        <message>
            <source>Stopping… what was read is kept; adding the same files resumes.</source>
            <translation>Wird gestoppt… Bereits Gelesenes bleibt erhalten; erneutes Hinzufügen derselben Dateien setzt das Lesen fort.</translation>
        </message>
        <message>
            <source>Nothing to add.</source>
            <translation>Nichts hinzuzufügen.</translation>
        </message>
        <message>
            <source>Reading {at} of {total}: {name} ({rate} pages a second)</source>
            <translation>{at} von {total} wird gelesen: {name} ({rate} Seiten pro Sekunde)</translation>
        </message>
        <message>
            <source>Reading {at} of {total}: {name}</source>
            <translation>{at} von {total} wird gelesen: {name}</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages ({rate} a second), about {eta} s left</source>
            <translation>Bedeutung wird indexiert: {done} von {total} Textstellen ({rate} pro Sekunde), noch etwa {eta} s</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages ({rate} a second)</source>
            <translation>Bedeutung wird indexiert: {done} von {total} Textstellen ({rate} pro Sekunde)</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages, about {eta} s left</source>
            <translation>Bedeutung wird indexiert: {done} von {total} Textstellen, noch etwa {eta} s</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages</source>
            <translation>Bedeutung wird indexiert: {done} von {total} Textstellen</translation>
        </message>
        <message>
            <source>The collection is still being indexed: these are from what is read so far.</source>
            <translation>Die Sammlung wird noch indexiert: Diese Ergebnisse stammen aus dem bisher Gelesenen.</translation>
        </message>
        <message>
            <source>Searching by keywords only: no embedding model yet (get {model} under Models to search by meaning).</source>
            <translation>Suche nur nach Stichwörtern: noch kein Embedding-Modell (laden Sie {model} unter „Modelle“ herunter, um nach Bedeutung zu suchen).</translation>
        </message>
        <message>
            <source>Nothing in this collection matches.</source>
            <translation>In dieser Sammlung passt nichts.</translation>
        </message>
        <message>
            <source>{file}, page {page}</source>
            <translation>{file}, Seite {page}</translation>
        </message>
        <message>
            <source>New collection</source>
            <translation>Neue Sammlung</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>Name:</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>Dateien hinzufügen</translation>
        </message>
        <message>
            <source>Documents ({patterns})</source>
            <translation>Dokumente ({patterns})</translation>
        </message>
        <message>
            <source>All files ({patterns})</source>
            <translation>Alle Dateien ({patterns})</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>Ordner hinzufügen</translation>
        </message>
    </context>
    <context>
        <name>Downloads</name>
        <message>
            <source>Give a repository as owner/repo (Cove chooses the file that suits this computer), or one file as owner/repo/FILE, for example {example}.</source>
            <translation>Geben Sie ein Repository als owner/repo an (Cove wählt die Datei, die zu diesem Computer passt) oder eine einzelne Datei als owner/repo/FILE, zum Beispiel {example}.</translation>
        </message>
        <message>
            <source>{repo} has no model file Cove can choose: it holds no single-file GGUF model. Name one of its files as owner/repo/FILE, or look for the model on Discover.</source>
            <translation>{repo} hat keine Modelldatei, die Cove auswählen kann: Es enthält kein GGUF-Modell in einer einzelnen Datei. Geben Sie eine seiner Dateien als owner/repo/FILE an, oder suchen Sie das Modell unter „Entdecken“.</translation>
        </message>
        <message>
            <source>No model file of {repo} fits in the memory free here: the smallest, {file}, is {size}. Close other programs, or choose a smaller model.</source>
            <translation>Keine Modelldatei von {repo} passt in den hier freien Speicher: Die kleinste, {file}, ist {size} groß. Schließen Sie andere Programme oder wählen Sie ein kleineres Modell.</translation>
        </message>
        <message>
            <source>{name} is already in the downloads.</source>
            <translation>{name} ist bereits in den Downloads.</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>Wartet</translation>
        </message>
        <message>
            <source>Asking the hub</source>
            <translation>Hub wird abgefragt</translation>
        </message>
        <message>
            <source>Downloading</source>
            <translation>Wird heruntergeladen</translation>
        </message>
        <message>
            <source>Checking the file</source>
            <translation>Datei wird geprüft</translation>
        </message>
        <message>
            <source>Fetching damaged parts again</source>
            <translation>Beschädigte Teile werden erneut geladen</translation>
        </message>
        <message>
            <source>Installing</source>
            <translation>Wird installiert</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>Pausiert</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installiert</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fehlgeschlagen</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Abgebrochen</translation>
        </message>
        <message>
            <source>{s} s left</source>
            <translation>noch {s} s</translation>
        </message>
        <message>
            <source>{min} min left</source>
            <translation>noch {min} min</translation>
        </message>
        <message>
            <source>{h} h {min} min left</source>
            <translation>noch {h} h {min} min</translation>
        </message>
        <message>
            <source>{done} of {total}</source>
            <translation>{done} von {total}</translation>
        </message>
        <message>
            <source>with its vision projector</source>
            <translation>mit seinem Vision-Projektor</translation>
        </message>
        <message>
            <source>Reads images with {projector}, downloaded with it.</source>
            <translation>Liest Bilder mit {projector}, der mit heruntergeladen wird.</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Pausieren</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Choose a file for me</source>
            <translation>Datei für mich auswählen</translation>
        </message>
        <message>
            <source>Downloads the file of {repo} that suits this computer: its 4-bit, medium quality build, else the largest that fits in the memory free here.</source>
            <translation>Lädt die Datei von {repo} herunter, die zu diesem Computer passt: den 4-Bit-Build mittlerer Qualität, sonst den größten, der in den hier freien Speicher passt.</translation>
        </message>
        <message>
            <source>Download without image reading</source>
            <translation>Ohne Bildlesefunktion herunterladen</translation>
        </message>
        <message>
            <source>Downloads {file} alone: the model reads text, not images.</source>
            <translation>Lädt nur {file} herunter: Das Modell liest Text, keine Bilder.</translation>
        </message>
        <message>
            <source>Chat with it</source>
            <translation>Damit chatten</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>Erneut versuchen</translation>
        </message>
        <message>
            <source>owner/repo or owner/repo/FILE.gguf, as on the Hugging Face Hub</source>
            <translation>owner/repo oder owner/repo/FILE.gguf, wie auf dem Hugging Face Hub</translation>
        </message>
        <message>
            <source>Model to download</source>
            <translation>Herunterzuladendes Modell</translation>
        </message>
        <message>
            <source>Add download</source>
            <translation>Download hinzufügen</translation>
        </message>
        <message>
            <source>No downloads yet. Downloads go on while you chat, and a paused or interrupted one resumes where it stopped.</source>
            <translation>Noch keine Downloads. Downloads laufen weiter, während Sie chatten, und ein pausierter oder unterbrochener Download wird dort fortgesetzt, wo er aufgehört hat.</translation>
        </message>
        <message>
            <source>Choosing the file of {repo} that suits this computer…</source>
            <translation>Die zu diesem Computer passende Datei von {repo} wird ausgewählt…</translation>
        </message>
        <message>
            <source>No file of {repo} was chosen: {why}</source>
            <translation>Es wurde keine Datei von {repo} ausgewählt: {why}</translation>
        </message>
    </context>
    <context>
        <name>Engine</name>
        <message>
            <source>The engine could not start. {reason}</source>
            <translation>Die Engine konnte nicht starten. {reason}</translation>
        </message>
        <message>
            <source>The engine at {where} has no chat model. Load one on that computer, then connect again.</source>
            <translation>Die Engine auf {where} hat kein Chatmodell. Laden Sie eines auf jenem Computer und verbinden Sie sich dann erneut.</translation>
        </message>
        <message>
            <source>Could not connect to the engine at {url}. {reason}</source>
            <translation>Keine Verbindung zur Engine unter {url} möglich. {reason}</translation>
        </message>
        <message>
            <source>The engine is not running; restart it first.</source>
            <translation>Die Engine läuft nicht; starten Sie sie zuerst neu.</translation>
        </message>
        <message>
            <source>Could not unload {model}: {reason}</source>
            <translation>{model} konnte nicht entladen werden: {reason}</translation>
        </message>
        <message>
            <source>{note} Choose one of its models, or use this computer's engine (Settings › Engine) to load this one.</source>
            <translation>{note} Wählen Sie eines ihrer Modelle oder verwenden Sie die Engine dieses Computers (Einstellungen › Engine), um dieses zu laden.</translation>
        </message>
        <message>
            <source>The engine is not running.</source>
            <translation>Die Engine läuft nicht.</translation>
        </message>
        <message>
            <source>The engine is not running. Use Restart engine, then send the message again.</source>
            <translation>Die Engine läuft nicht. Verwenden Sie „Engine neu starten“ und senden Sie die Nachricht dann erneut.</translation>
        </message>
        <message>
            <source>The engine stopped unexpectedly. Restart it to continue.</source>
            <translation>Die Engine wurde unerwartet beendet. Starten Sie sie neu, um fortzufahren.</translation>
        </message>
        <message>
            <source>The engine could not be restarted: {reason}</source>
            <translation>Die Engine konnte nicht neu gestartet werden: {reason}</translation>
        </message>
    </context>
    <context>
        <name>Engine settings</name>
        <message>
            <source>Cove's own engine runs your models on this computer: it loads them, checks that they fit in memory, and keeps each conversation's state.</source>
            <translation>Coves eigene Engine führt Ihre Modelle auf diesem Computer aus: Sie lädt sie, prüft, ob sie in den Speicher passen, und bewahrt den Zustand jeder Unterhaltung.</translation>
        </message>
        <message>
            <source>Another Cove on your network (in Cove's window there, Settings › Engine › "Let other computers on this network use this engine": it shows an address, a key and a fingerprint), or any OpenAI-compatible server: LM Studio (http://HOST:1234/v1), llama-server, vLLM, Ollama (http://HOST:11434/v1). Your conversations and documents stay here; each message and the passages it cites are sent to that computer.</source>
            <translation>Ein anderes Cove in Ihrem Netzwerk (dort in Coves Fenster unter Einstellungen › Engine › „Anderen Computern in diesem Netzwerk diese Engine erlauben“: Es zeigt eine Adresse, einen Schlüssel und einen Fingerabdruck) oder ein beliebiger OpenAI-kompatibler Server: LM Studio (http://HOST:1234/v1), llama-server, vLLM, Ollama (http://HOST:11434/v1). Ihre Unterhaltungen und Dokumente bleiben hier; jede Nachricht und die Passagen, die sie zitiert, werden an diesen Computer gesendet.</translation>
        </message>
        <message>
            <source>Kept in this computer's keyring (or a file only you can read).</source>
            <translation>Im Schlüsselbund dieses Computers gespeichert (oder in einer Datei, die nur Sie lesen können).</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>Engine</translation>
        </message>
        <message>
            <source>Where your models run</source>
            <translation>Wo Ihre Modelle laufen</translation>
        </message>
        <message>
            <source>This computer</source>
            <translation>Dieser Computer</translation>
        </message>
        <message>
            <source>Another computer</source>
            <translation>Ein anderer Computer</translation>
        </message>
        <message>
            <source>Address of the other computer's engine</source>
            <translation>Adresse der Engine des anderen Computers</translation>
        </message>
        <message>
            <source>Key</source>
            <translation>Schlüssel</translation>
        </message>
        <message>
            <source>the key that computer gave (none if the server needs none)</source>
            <translation>der Schlüssel, den dieser Computer angegeben hat (keiner, wenn der Server keinen braucht)</translation>
        </message>
        <message>
            <source>Find on this network</source>
            <translation>In diesem Netzwerk suchen</translation>
        </message>
        <message>
            <source>Cove engines that let this network use them and announce themselves: their name and certificate fingerprint. Finding one does not trust it.</source>
            <translation>Cove-Engines, die dieses Netzwerk nutzen lassen und sich ankündigen: ihr Name und der Fingerabdruck ihres Zertifikats. Eine gefundene Engine wird dadurch nicht als vertrauenswürdig eingestuft.</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>Certificate fingerprint (SHA-256)</source>
            <translation>Fingerabdruck des Zertifikats (SHA-256)</translation>
        </message>
        <message>
            <source>Trust the new certificate…</source>
            <translation>Dem neuen Zertifikat vertrauen…</translation>
        </message>
        <message>
            <source>Sharing this computer's engine</source>
            <translation>Die Engine dieses Computers teilen</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>Connect</source>
            <translation>Verbinden</translation>
        </message>
        <message>
            <source>Enter the other computer's address, like {example}</source>
            <translation>Geben Sie die Adresse des anderen Computers ein, etwa {example}</translation>
        </message>
        <message>
            <source>Looking…</source>
            <translation>Wird gesucht…</translation>
        </message>
        <message>
            <source>Could not look on the network: {error}</source>
            <translation>Im Netzwerk konnte nicht gesucht werden: {error}</translation>
        </message>
        <message>
            <source>No Cove announced itself on this network. On the other computer, open Cove's Settings › Engine and tick "Let other computers on this network use this engine"; or type its address. On a computer without a screen, run {command} there.</source>
            <translation>In diesem Netzwerk hat sich kein Cove angekündigt. Öffnen Sie auf dem anderen Computer in Cove Einstellungen › Engine und setzen Sie das Häkchen bei „Anderen Computern in diesem Netzwerk diese Engine erlauben“, oder geben Sie seine Adresse ein. Auf einem Computer ohne Bildschirm führen Sie dort {command} aus.</translation>
        </message>
        <message>
            <source>Connecting to {where}…</source>
            <translation>Verbindung zu {where} wird hergestellt…</translation>
        </message>
        <message>
            <source>Use this computer</source>
            <translation>Diesen Computer verwenden</translation>
        </message>
        <message>
            <source>Connected to {where}</source>
            <translation>Verbunden mit {where}</translation>
        </message>
        <message>
            <source>1 model there</source>
            <translation>1 Modell dort</translation>
        </message>
        <message>
            <source>{n} models there</source>
            <translation>{n} Modelle dort</translation>
        </message>
        <message>
            <source>Chats use {model} ({count}). {note}</source>
            <translation>Chats verwenden {model} ({count}). {note}</translation>
        </message>
        <message>
            <source>First connection: Cove pinned this certificate. Check that it is the fingerprint that Cove shows on {where} (Settings › Engine); if it is not, choose This computer and tell whoever runs that computer.</source>
            <translation>Erste Verbindung: Cove hat sich dieses Zertifikat gemerkt. Prüfen Sie, ob es der Fingerabdruck ist, den Cove auf {where} anzeigt (Einstellungen › Engine); falls nicht, wählen Sie „Dieser Computer“ und informieren Sie die Person, die diesen Computer betreut.</translation>
        </message>
        <message>
            <source>Pinned at the first connection: a different certificate would be refused.</source>
            <translation>Bei der ersten Verbindung gemerkt: Ein anderes Zertifikat würde abgelehnt.</translation>
        </message>
        <message>
            <source>Models run on this computer</source>
            <translation>Modelle laufen auf diesem Computer</translation>
        </message>
        <message>
            <source>&lt;b&gt;The certificate of {where} has changed.&lt;/b&gt; It is not the one Cove pinned when it first connected. Someone on the network may be impersonating that computer, so Cove did not connect.&lt;br&gt;If that computer's Cove made a new certificate (it was reinstalled, or its data folder replaced), compare the fingerprint it shows now with the new one below before trusting it.</source>
            <translation>&lt;b&gt;Das Zertifikat von {where} hat sich geändert.&lt;/b&gt; Es ist nicht das, das sich Cove bei der ersten Verbindung gemerkt hat. Möglicherweise gibt sich jemand im Netzwerk als dieser Computer aus, deshalb hat Cove keine Verbindung hergestellt.&lt;br&gt;Wenn das Cove auf diesem Computer ein neues Zertifikat erstellt hat (es wurde neu installiert oder sein Datenordner ersetzt), vergleichen Sie den Fingerabdruck, den es jetzt anzeigt, mit dem neuen unten, bevor Sie ihm vertrauen.</translation>
        </message>
        <message>
            <source>It now shows:</source>
            <translation>Jetzt angezeigt:</translation>
        </message>
        <message>
            <source>Trust the new certificate of {where}?

Do this only if the Cove on that computer shows this same fingerprint (its Settings › Engine):

{fingerprint}

If you cannot check, choose No: Cove stays disconnected from it.</source>
            <translation>Dem neuen Zertifikat von {where} vertrauen?

Tun Sie das nur, wenn das Cove auf diesem Computer genau diesen Fingerabdruck anzeigt (dort unter Einstellungen › Engine):

{fingerprint}

Wenn Sie das nicht prüfen können, wählen Sie Nein: Cove bleibt dann getrennt.</translation>
        </message>
        <message>
            <source>Trust the new certificate?</source>
            <translation>Dem neuen Zertifikat vertrauen?</translation>
        </message>
        <message>
            <source>Starting the engine…</source>
            <translation>Engine wird gestartet…</translation>
        </message>
        <message>
            <source>First connection to {where}: its certificate {fingerprint}… is pinned. Check the whole fingerprint (Settings › Engine) against that computer's.</source>
            <translation>Erste Verbindung zu {where}: Sein Zertifikat {fingerprint}… wurde gemerkt. Vergleichen Sie den ganzen Fingerabdruck (Einstellungen › Engine) mit dem dieses Computers.</translation>
        </message>
        <message>
            <source>On {where}</source>
            <translation>Auf {where}</translation>
        </message>
        <message>
            <source>Sharing stopped: {reason}</source>
            <translation>Teilen beendet: {reason}</translation>
        </message>
        <message>
            <source>Sharing stopped unexpectedly. Tick the box above to share this engine again.</source>
            <translation>Das Teilen wurde unerwartet beendet. Setzen Sie das Häkchen oben, um diese Engine erneut zu teilen.</translation>
        </message>
        <message>
            <source>Sharing could not start: {reason}</source>
            <translation>Teilen konnte nicht starten: {reason}</translation>
        </message>
        <message>
            <source>● in use</source>
            <translation>● in Verwendung</translation>
        </message>
        <message>
            <source>Use in the chat</source>
            <translation>Im Chat verwenden</translation>
        </message>
        <message>
            <source>{note} These are the models it serves; the one you choose answers your chats. To load another there, do it on that computer; to use the models listed under Installed, choose This computer in Settings › Engine.</source>
            <translation>{note} Das sind die Modelle, die es bereitstellt; das gewählte beantwortet Ihre Chats. Um dort ein anderes zu laden, tun Sie das auf diesem Computer; um die unter „Installiert“ aufgeführten Modelle zu verwenden, wählen Sie „Dieser Computer“ unter Einstellungen › Engine.</translation>
        </message>
        <message>
            <source>Let other computers on this network use this engine</source>
            <translation>Anderen Computern in diesem Netzwerk diese Engine erlauben</translation>
        </message>
        <message>
            <source>Port</source>
            <translation>Port</translation>
        </message>
        <message>
            <source>Web pages allowed</source>
            <translation>Erlaubte Webseiten</translation>
        </message>
        <message>
            <source>Web pages and browser extensions from elsewhere that may use this engine, with the key (* stands for any text; separate them with commas). Pages served by this computer and desktop apps such as Obsidian are allowed already; any other page is refused.</source>
            <translation>Webseiten und Browsererweiterungen von anderswo, die diese Engine mit dem Schlüssel nutzen dürfen (* steht für beliebigen Text; durch Kommas trennen). Seiten dieses Computers und Desktop-Apps wie Obsidian sind bereits erlaubt; jede andere Seite wird abgewiesen.</translation>
        </message>
        <message>
            <source>Make a new key</source>
            <translation>Neuen Schlüssel erstellen</translation>
        </message>
        <message>
            <source>The old key stops working</source>
            <translation>Der alte Schlüssel funktioniert dann nicht mehr</translation>
        </message>
        <message>
            <source>Fingerprint</source>
            <translation>Fingerabdruck</translation>
        </message>
        <message>
            <source>Only this computer's engine can be shared: choose This computer first.</source>
            <translation>Nur die Engine dieses Computers kann geteilt werden: Wählen Sie zuerst „Dieser Computer“.</translation>
        </message>
        <message>
            <source>Serves {model} to this network from an engine of its own (the model loads a second time), until Cove closes. Others connect with the address and the key, and check the fingerprint their Cove shows.</source>
            <translation>Stellt {model} diesem Netzwerk über eine eigene Engine bereit (das Modell wird ein zweites Mal geladen), bis Cove geschlossen wird. Andere verbinden sich mit der Adresse und dem Schlüssel und prüfen den Fingerabdruck, den ihr Cove anzeigt.</translation>
        </message>
        <message>
            <source>the model in use</source>
            <translation>das verwendete Modell</translation>
        </message>
        <message>
            <source>Serving at {address}</source>
            <translation>Bereitgestellt unter {address}</translation>
        </message>
        <message>
            <source>Starting…</source>
            <translation>Wird gestartet…</translation>
        </message>
        <message>
            <source>Shown only now: give it to the people who may use this engine. Cove keeps only a digest of it.</source>
            <translation>Nur jetzt angezeigt: Geben Sie ihn den Personen, die diese Engine nutzen dürfen. Cove bewahrt nur einen Hashwert davon auf.</translation>
        </message>
        <message>
            <source>made earlier</source>
            <translation>früher erstellt</translation>
        </message>
        <message>
            <source>Only a digest of the key is kept, so it cannot be shown again. Make a new one to give out (the old one stops working).</source>
            <translation>Vom Schlüssel wird nur ein Hashwert aufbewahrt, daher kann er nicht erneut angezeigt werden. Erstellen Sie einen neuen zum Weitergeben (der alte funktioniert dann nicht mehr).</translation>
        </message>
    </context>
    <context>
        <name>Find in chat</name>
        <message>
            <source>Find in this chat</source>
            <translation>In diesem Chat suchen</translation>
        </message>
        <message>
            <source>Find in chat</source>
            <translation>Im Chat suchen</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>Vorheriger Treffer</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>Nächster Treffer</translation>
        </message>
        <message>
            <source>Close find</source>
            <translation>Suche schließen</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>Keine Treffer</translation>
        </message>
        <message>
            <source>{at} of {total}</source>
            <translation>{at} von {total}</translation>
        </message>
    </context>
    <context>
        <name>Hardware</name>
        <message>
            <source>this computer and others on the network</source>
            <translation>diesem Computer und anderen im Netzwerk</translation>
        </message>
        <message>
            <source>the processor</source>
            <translation>dem Prozessor</translation>
        </message>
        <message>
            <source>the graphics card ({name})</source>
            <translation>der Grafikkarte ({name})</translation>
        </message>
        <message>
            <source>the Neural Engine</source>
            <translation>der Neural Engine</translation>
        </message>
        <message>
            <source>the AI accelerator</source>
            <translation>dem KI-Beschleuniger</translation>
        </message>
        <message>
            <source>the graphics card</source>
            <translation>der Grafikkarte</translation>
        </message>
        <message>
            <source>the processor (1 core)</source>
            <translation>dem Prozessor (1 Kern)</translation>
        </message>
        <message>
            <source>the processor ({cores} cores)</source>
            <translation>dem Prozessor ({cores} Kerne)</translation>
        </message>
        <message>
            <source>exit code {code}</source>
            <translation>Exit-Code {code}</translation>
        </message>
        <message>
            <source>Guessed tokens are checked in batches wherever that pays. This build computes a batch exactly as single tokens for the first {count} tokens of a conversation; past them a batch may round differently, as replies batched together do (speculation "exact" keeps to them).</source>
            <translation>Geratene Token werden stapelweise geprüft, wo immer sich das lohnt. Dieser Build berechnet einen Stapel für die ersten {count} Token einer Unterhaltung genau wie einzelne Token; danach kann ein Stapel anders runden, wie es gemeinsam verarbeitete Antworten tun (speculation "exact" bleibt innerhalb dieser Token).</translation>
        </message>
        <message>
            <source>Guessed tokens are checked in batches wherever that pays. This build computes a batch slightly differently from single tokens, which may change a near-tie (speculation "exact" turns it off here).</source>
            <translation>Geratene Token werden stapelweise geprüft, wo immer sich das lohnt. Dieser Build berechnet einen Stapel leicht anders als einzelne Token, was bei einem knappen Gleichstand das Ergebnis ändern kann (speculation "exact" schaltet dies hier aus).</translation>
        </message>
        <message>
            <source>{draft} drafts for it.</source>
            <translation>{draft} liefert die Entwürfe dafür.</translation>
        </message>
        <message>
            <source>No draft model is in use.</source>
            <translation>Es wird kein Entwurfsmodell verwendet.</translation>
        </message>
        <message>
            <source>Speculative decoding: {guesses} {draft}</source>
            <translation>Spekulatives Dekodieren: {guesses} {draft}</translation>
        </message>
        <message>
            <source>Background measuring is off: models run the way the planner chose.</source>
            <translation>Das Messen im Hintergrund ist ausgeschaltet: Modelle laufen so, wie der Planer es gewählt hat.</translation>
        </message>
        <message>
            <source>Nothing is waiting to be measured.</source>
            <translation>Nichts wartet auf eine Messung.</translation>
        </message>
        <message>
            <source>&lt;b&gt;{model}&lt;/b&gt; runs on &lt;b&gt;{device}&lt;/b&gt;, with a context of {n} tokens.</source>
            <translation>&lt;b&gt;{model}&lt;/b&gt; läuft auf &lt;b&gt;{device}&lt;/b&gt;, mit einem Kontext von {n} Token.</translation>
        </message>
        <message>
            <source>{n} threads</source>
            <translation>{n} Threads</translation>
        </message>
        <message>
            <source>Why: {verdict}.</source>
            <translation>Grund: {verdict}.</translation>
        </message>
        <message>
            <source>Models run best here on &lt;b&gt;{device}&lt;/b&gt;.</source>
            <translation>Modelle laufen hier am besten auf &lt;b&gt;{device}&lt;/b&gt;.</translation>
        </message>
        <message>
            <source>System</source>
            <translation>System</translation>
        </message>
        <message>
            <source>Processor</source>
            <translation>Prozessor</translation>
        </message>
        <message>
            <source>{cores} cores, {threads} threads at once</source>
            <translation>{cores} Kerne, {threads} Threads gleichzeitig</translation>
        </message>
        <message>
            <source>Cores</source>
            <translation>Kerne</translation>
        </message>
        <message>
            <source>none detected</source>
            <translation>keine erkannt</translation>
        </message>
        <message>
            <source>{total} total, {free} available</source>
            <translation>{total} insgesamt, {free} verfügbar</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Arbeitsspeicher</translation>
        </message>
        <message>
            <source>{total} shared with the processor, about {usable} usable</source>
            <translation>{total} mit dem Prozessor geteilt, etwa {usable} nutzbar</translation>
        </message>
        <message>
            <source>{free} free of {total}</source>
            <translation>{free} von {total} frei</translation>
        </message>
        <message>
            <source>Graphics card {n}</source>
            <translation>Grafikkarte {n}</translation>
        </message>
        <message>
            <source>Graphics card</source>
            <translation>Grafikkarte</translation>
        </message>
        <message>
            <source>AI accelerator</source>
            <translation>KI-Beschleuniger</translation>
        </message>
        <message>
            <source>uses the graphics card</source>
            <translation>nutzt die Grafikkarte</translation>
        </message>
        <message>
            <source>uses the processor</source>
            <translation>nutzt den Prozessor</translation>
        </message>
        <message>
            <source>unknown</source>
            <translation>unbekannt</translation>
        </message>
        <message>
            <source>devices: {devices}</source>
            <translation>Geräte: {devices}</translation>
        </message>
        <message>
            <source>unavailable: {reason}</source>
            <translation>nicht verfügbar: {reason}</translation>
        </message>
        <message>
            <source>Not found</source>
            <translation>Nicht gefunden</translation>
        </message>
        <message>
            <source>No model has been measured here yet. A model that can run more than one way (flash attention on or off, graphics card or processor, its GGUF or ONNX build) is measured after it is first loaded, once this computer is idle.</source>
            <translation>Hier wurde noch kein Modell gemessen. Ein Modell, das auf mehr als eine Weise laufen kann (Flash Attention an oder aus, Grafikkarte oder Prozessor, GGUF- oder ONNX-Build), wird nach dem ersten Laden gemessen, sobald dieser Computer im Leerlauf ist.</translation>
        </message>
        <message>
            <source>Measured</source>
            <translation>Gemessen</translation>
        </message>
        <message>
            <source>Measured (a turn at a {n}-token context)</source>
            <translation>Gemessen (ein Durchgang bei einem Kontext von {n} Token)</translation>
        </message>
        <message>
            <source>(your choice)</source>
            <translation>(Ihre Wahl)</translation>
        </message>
        <message>
            <source>(fastest)</source>
            <translation>(am schnellsten)</translation>
        </message>
        <message>
            <source>prompt {prompt} tokens/s, replies {start} tokens/s at the start, {half} halfway; a turn {turn} s ({low}–{high} s over {runs} runs)</source>
            <translation>Prompt {prompt} Token/s, Antworten {start} Token/s zu Beginn, {half} zur Hälfte; ein Durchgang {turn} s ({low}–{high} s über {runs} Läufe)</translation>
        </message>
        <message>
            <source>Measured while other programs kept the processor busy: measured again later, when this computer is idle.</source>
            <translation>Gemessen, während andere Programme den Prozessor auslasteten: Wird später erneut gemessen, wenn dieser Computer im Leerlauf ist.</translation>
        </message>
        <message>
            <source>Use this way</source>
            <translation>Diese Variante verwenden</translation>
        </message>
        <message>
            <source>Go back to the fastest way</source>
            <translation>Zur schnellsten Variante zurückkehren</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>Hardware</translation>
        </message>
        <message>
            <source>Check again</source>
            <translation>Erneut prüfen</translation>
        </message>
        <message>
            <source>Measure in the background when this computer is idle</source>
            <translation>Im Hintergrund messen, wenn dieser Computer im Leerlauf ist</translation>
        </message>
        <message>
            <source>Cove measures the fastest way to run a model on this computer only while nothing else is using the processor, and stops at once when another program needs it.</source>
            <translation>Cove ermittelt die schnellste Art, ein Modell auf diesem Computer auszuführen, nur, während nichts anderes den Prozessor nutzt, und hört sofort auf, wenn ein anderes Programm ihn braucht.</translation>
        </message>
        <message>
            <source>Could not change the setting: {error}</source>
            <translation>Die Einstellung konnte nicht geändert werden: {error}</translation>
        </message>
        <message>
            <source>Cove could not look at this computer's hardware. Models still run, on the processor; Check again tries once more.</source>
            <translation>Cove konnte die Hardware dieses Computers nicht untersuchen. Modelle laufen trotzdem, auf dem Prozessor; „Erneut prüfen“ versucht es noch einmal.</translation>
        </message>
        <message>
            <source>Looking…</source>
            <translation>Wird untersucht…</translation>
        </message>
    </context>
    <context>
        <name>History</name>
        <message>
            <source>the backup of {when}</source>
            <translation>der Sicherung von {when}</translation>
        </message>
        <message>
            <source>no backup (there was none yet)</source>
            <translation>keiner Sicherung (es gab noch keine)</translation>
        </message>
        <message>
            <source>Chat history repaired</source>
            <translation>Chatverlauf repariert</translation>
        </message>
        <message>
            <source>Your chat history was repaired</source>
            <translation>Ihr Chatverlauf wurde repariert</translation>
        </message>
        <message>
            <source>Cove found the chat history damaged ({problem}) and rebuilt it from {source} and everything the damaged file still held: {chats} chats are here. The damaged file is kept, unchanged, in {folder}.</source>
            <translation>Cove hat den Chatverlauf beschädigt vorgefunden ({problem}) und ihn aus {source} und allem, was die beschädigte Datei noch enthielt, neu aufgebaut: {chats} Chats sind da. Die beschädigte Datei wird unverändert in {folder} aufbewahrt.</translation>
        </message>
        <message>
            <source>it held fewer messages than before: its journal was lost, or an older copy replaced it</source>
            <translation>sie enthielt weniger Nachrichten als zuvor: ihr Journal ging verloren, oder eine ältere Kopie hat sie ersetzt</translation>
        </message>
        <message>
            <source>the file is no longer a database: something wrote over it</source>
            <translation>die Datei ist keine Datenbank mehr: etwas hat sie überschrieben</translation>
        </message>
        <message>
            <source>part of the file could not be read</source>
            <translation>ein Teil der Datei konnte nicht gelesen werden</translation>
        </message>
        <message>
            <source>Show the damaged file</source>
            <translation>Beschädigte Datei zeigen</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>Der Chatverlauf wird noch geöffnet; versuchen Sie es gleich noch einmal.</translation>
        </message>
    </context>
    <context>
        <name>Hugging Face settings</name>
        <message>
            <source>Hugging Face settings</source>
            <translation>Einstellungen für Hugging Face</translation>
        </message>
        <message>
            <source>hf_… (only for gated or private models)</source>
            <translation>hf_… (nur für zugangsbeschränkte oder private Modelle)</translation>
        </message>
        <message>
            <source>the system's certificates</source>
            <translation>die Zertifikate des Systems</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Auswählen…</translation>
        </message>
        <message>
            <source>Access token</source>
            <translation>Zugriffstoken</translation>
        </message>
        <message>
            <source>Hub address</source>
            <translation>Hub-Adresse</translation>
        </message>
        <message>
            <source>CA bundle</source>
            <translation>CA-Bundle</translation>
        </message>
        <message>
            <source>HF_TOKEN is set in the environment and is used instead of this token.</source>
            <translation>HF_TOKEN ist in der Umgebung gesetzt und wird anstelle dieses Tokens verwendet.</translation>
        </message>
        <message>
            <source>HF_ENDPOINT is set in the environment and wins over this address.</source>
            <translation>HF_ENDPOINT ist in der Umgebung gesetzt und hat Vorrang vor dieser Adresse.</translation>
        </message>
        <message>
            <source>The token is kept in Cove's data folder, readable by you alone, and sent only to the hub's own address.</source>
            <translation>Das Token wird im Datenordner von Cove gespeichert, ist nur für Sie lesbar und wird nur an die eigene Adresse des Hubs gesendet.</translation>
        </message>
        <message>
            <source>Certificates (*.pem *.crt *.cer)</source>
            <translation>Zertifikate (*.pem *.crt *.cer)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Alle Dateien (*)</translation>
        </message>
    </context>
    <context>
        <name>Import</name>
        <message>
            <source>Import a model</source>
            <translation>Modell importieren</translation>
        </message>
        <message>
            <source>GGUF models (*.gguf)</source>
            <translation>GGUF-Modelle (*.gguf)</translation>
        </message>
        <message>
            <source>ONNX model config (genai_config.json)</source>
            <translation>ONNX-Modellkonfiguration (genai_config.json)</translation>
        </message>
        <message>
            <source>Import {name}?</source>
            <translation>{name} importieren?</translation>
        </message>
        <message>
            <source>A copy in Cove's models folder keeps working if the original moves; using it where it is takes no extra space.</source>
            <translation>Eine Kopie im Modellordner von Cove funktioniert weiter, wenn das Original verschoben wird; die Verwendung am aktuellen Ort belegt keinen zusätzlichen Speicherplatz.</translation>
        </message>
        <message>
            <source>Copy into models folder</source>
            <translation>In den Modellordner kopieren</translation>
        </message>
        <message>
            <source>Use where it is</source>
            <translation>Am aktuellen Ort verwenden</translation>
        </message>
    </context>
    <context>
        <name>MCP</name>
        <message>
            <source>Tools from the servers listed here are offered to the model in your chats, and each call asks for your consent first. A server is a program that runs on this computer, or an address it connects to, with whatever access that program or address has: add only servers you trust. Nothing starts until you add one.</source>
            <translation>Werkzeuge der hier aufgeführten Server werden dem Modell in Ihren Chats angeboten, und jeder Aufruf fragt zuerst nach Ihrer Zustimmung. Ein Server ist ein Programm, das auf diesem Computer läuft, oder eine Adresse, mit der sich Cove verbindet, mit allen Zugriffsrechten, die dieses Programm oder diese Adresse hat: Fügen Sie nur Server hinzu, denen Sie vertrauen. Es wird nichts gestartet, bevor Sie einen hinzufügen.</translation>
        </message>
        <message>
            <source>off</source>
            <translation>aus</translation>
        </message>
        <message>
            <source>connecting…</source>
            <translation>wird verbunden…</translation>
        </message>
        <message>
            <source>{n} tools: {names} and {more} more</source>
            <translation>{n} Werkzeuge: {names} und {more} weitere</translation>
        </message>
        <message>
            <source>1 tool: {names}</source>
            <translation>1 Werkzeug: {names}</translation>
        </message>
        <message>
            <source>{n} tools: {names}</source>
            <translation>{n} Werkzeuge: {names}</translation>
        </message>
        <message>
            <source>failed: {reason}</source>
            <translation>fehlgeschlagen: {reason}</translation>
        </message>
        <message>
            <source>Add an MCP server</source>
            <translation>MCP-Server hinzufügen</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Name</translation>
        </message>
        <message>
            <source>Command or address</source>
            <translation>Befehl oder Adresse</translation>
        </message>
        <message>
            <source>A command starts the server on this computer (stdio); an http:// or https:// address connects to a running one (Streamable HTTP).</source>
            <translation>Ein Befehl startet den Server auf diesem Computer (stdio); eine http://- oder https://-Adresse verbindet sich mit einem laufenden Server (Streamable HTTP).</translation>
        </message>
        <message>
            <source>There is already a server called {name}.</source>
            <translation>Es gibt bereits einen Server namens {name}.</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP-Server</translation>
        </message>
        <message>
            <source>Offer these tools in chats</source>
            <translation>Diese Werkzeuge in Chats anbieten</translation>
        </message>
        <message>
            <source>Add…</source>
            <translation>Hinzufügen…</translation>
        </message>
        <message>
            <source>Import mcp.json…</source>
            <translation>mcp.json importieren…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Entfernen</translation>
        </message>
        <message>
            <source>Reconnect</source>
            <translation>Neu verbinden</translation>
        </message>
        <message>
            <source>Forget “Always allow”</source>
            <translation>„Immer erlauben“ vergessen</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Schließen</translation>
        </message>
        <message>
            <source>Always allowed: {tools}</source>
            <translation>Immer erlaubt: {tools}</translation>
        </message>
        <message>
            <source>No tool is always allowed</source>
            <translation>Kein Werkzeug ist immer erlaubt</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>MCP-Server importieren</translation>
        </message>
    </context>
    <context>
        <name>Message</name>
        <message>
            <source>Image</source>
            <translation>Bild</translation>
        </message>
        <message>
            <source>{name} ({width} x {height}): click to open it</source>
            <translation>{name} ({width} x {height}): zum Öffnen klicken</translation>
        </message>
        <message>
            <source>{name} could not be read.</source>
            <translation>{name} konnte nicht gelesen werden.</translation>
        </message>
        <message>
            <source>This image could not be read.</source>
            <translation>Dieses Bild konnte nicht gelesen werden.</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Denkt nach…</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Gedankengang</translation>
        </message>
        <message>
            <source>1 word</source>
            <translation>1 Wort</translation>
        </message>
        <message>
            <source>{n} words</source>
            <translation>{n} Wörter</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>Vorherige Version</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>Nächste Version</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>Version {index} von {count}</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Gestoppt</translation>
        </message>
        <message>
            <source>Interrupted</source>
            <translation>Unterbrochen</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fehlgeschlagen</translation>
        </message>
        <message>
            <source>You</source>
            <translation>Sie</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Kopieren</translation>
        </message>
        <message>
            <source>Copy this message as Markdown</source>
            <translation>Diese Nachricht als Markdown kopieren</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>Bearbeiten</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept as a version)</source>
            <translation>Diese Nachricht bearbeiten und erneut senden (das Original bleibt als Version erhalten)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>Neu generieren</translation>
        </message>
        <message>
            <source>Write this reply again (this one is kept as a version)</source>
            <translation>Diese Antwort neu schreiben (die bisherige bleibt als Version erhalten)</translation>
        </message>
        <message>
            <source>Write this reply again with another model</source>
            <translation>Diese Antwort mit einem anderen Modell neu schreiben</translation>
        </message>
        <message>
            <source>Regenerate with…</source>
            <translation>Neu generieren mit…</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Write more of this reply, which stopped at its length limit</source>
            <translation>Diese Antwort weiterschreiben, die an ihrer Längengrenze angehalten hat</translation>
        </message>
        <message>
            <source>Branch from here</source>
            <translation>Ab hier abzweigen</translation>
        </message>
        <message>
            <source>Start a new chat with the conversation up to this message</source>
            <translation>Einen neuen Chat mit der Unterhaltung bis zu dieser Nachricht beginnen</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Löschen</translation>
        </message>
        <message>
            <source>Delete this message (it can be undone)</source>
            <translation>Diese Nachricht löschen (kann rückgängig gemacht werden)</translation>
        </message>
        <message>
            <source>Waiting for the model…</source>
            <translation>Warten auf das Modell…</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>Ihre Nachricht</translation>
        </message>
        <message>
            <source>Reply from {speaker}</source>
            <translation>Antwort von {speaker}</translation>
        </message>
        <message>
            <source>Reply from the model</source>
            <translation>Antwort des Modells</translation>
        </message>
        <message>
            <source>No other model is installed</source>
            <translation>Kein anderes Modell installiert</translation>
        </message>
        <message>
            <source>Regenerate with {model}</source>
            <translation>Mit {model} neu generieren</translation>
        </message>
        <message>
            <source>Not saved yet</source>
            <translation>Noch nicht gespeichert</translation>
        </message>
        <message>
            <source>The disk is full: Cove saves this reply as soon as there is room.</source>
            <translation>Die Festplatte ist voll: Cove speichert diese Antwort, sobald wieder Platz ist.</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} Token</translation>
        </message>
        <message>
            <source>{rate} tokens/s</source>
            <translation>{rate} Token/s</translation>
        </message>
        <message>
            <source>first token {seconds} s</source>
            <translation>erstes Token nach {seconds} s</translation>
        </message>
        <message>
            <source>The reply reached its length limit (max tokens in the chat settings).</source>
            <translation>Die Antwort hat ihre Längengrenze erreicht (Max. Token in den Chat-Einstellungen).</translation>
        </message>
        <message>
            <source>Message copied</source>
            <translation>Nachricht kopiert</translation>
        </message>
        <message>
            <source>Code copied</source>
            <translation>Code kopiert</translation>
        </message>
        <message>
            <source>Edit message</source>
            <translation>Nachricht bearbeiten</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Abbrechen</translation>
        </message>
        <message>
            <source>Save &amp;&amp; send</source>
            <translation>Speichern &amp;&amp; senden</translation>
        </message>
        <message>
            <source>Save and send</source>
            <translation>Speichern und senden</translation>
        </message>
    </context>
    <context>
        <name>Model fit</name>
        <message>
            <source>{device}: weights {weights} + KV cache {kv_cache} + compute {compute} + runtime {runtime} = {total} of {free} free</source>
            <translation>{device}: Gewichte {weights} + KV-Cache {kv_cache} + Berechnung {compute} + Laufzeit {runtime} = {total} von {free} frei</translation>
        </message>
        <message>
            <source>Runs with {backend} on {device}, {tokens}-token context</source>
            <translation>Läuft mit {backend} auf {device}, Kontext von {tokens} Token</translation>
        </message>
        <message>
            <source>Fits ({device}, {context} context)</source>
            <translation>Passt ({device}, {context} Kontext)</translation>
        </message>
        <message>
            <source>Fits at {context} context (not {requested})</source>
            <translation>Passt mit {context} Kontext (nicht {requested})</translation>
        </message>
        <message>
            <source>Fits at {context} context</source>
            <translation>Passt mit {context} Kontext</translation>
        </message>
        <message>
            <source>Fits with {layers} of {total} layers on the GPU (slower)</source>
            <translation>Passt mit {layers} von {total} Schichten auf der GPU (langsamer)</translation>
        </message>
        <message>
            <source>Can't run on this computer</source>
            <translation>Läuft nicht auf diesem Computer</translation>
        </message>
        <message>
            <source>Won't fit: needs {needed}, {free} free</source>
            <translation>Passt nicht: benötigt {needed}, {free} frei</translation>
        </message>
        <message>
            <source>Can't check: {reason}</source>
            <translation>Prüfung nicht möglich: {reason}</translation>
        </message>
    </context>
    <context>
        <name>Model picker</name>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies</source>
            <translation>Das Modell, das die Antworten dieses Chats schreibt</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies (Ctrl+L)</source>
            <translation>Das Modell, das die Antworten dieses Chats schreibt (Ctrl+L)</translation>
        </message>
        <message>
            <source>{model} — not installed</source>
            <translation>{model} — nicht installiert</translation>
        </message>
    </context>
    <context>
        <name>Models</name>
        <message>
            <source>Models</source>
            <translation>Modelle</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Aktualisieren</translation>
        </message>
        <message>
            <source>Import file…</source>
            <translation>Datei importieren…</translation>
        </message>
        <message>
            <source>Open models folder</source>
            <translation>Modellordner öffnen</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installiert</translation>
        </message>
        <message>
            <source>Downloads</source>
            <translation>Downloads</translation>
        </message>
        <message>
            <source>Discover</source>
            <translation>Entdecken</translation>
        </message>
        <message>
            <source>Cove checks each model against the memory that is free right now, before loading it. Put GGUF files or ONNX model folders in {folder} or import them.</source>
            <translation>Cove prüft jedes Modell vor dem Laden anhand des gerade freien Speichers. Legen Sie GGUF-Dateien oder ONNX-Modellordner in {folder} ab oder importieren Sie sie.</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modell</translation>
        </message>
        <message>
            <source>Format</source>
            <translation>Format</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>Größe</translation>
        </message>
        <message>
            <source>On this computer</source>
            <translation>Auf diesem Computer</translation>
        </message>
        <message>
            <source>Speed here</source>
            <translation>Geschwindigkeit hier</translation>
        </message>
        <message>
            <source>Cancel loading</source>
            <translation>Laden abbrechen</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>Löschen…</translation>
        </message>
        <message>
            <source>Load</source>
            <translation>Laden</translation>
        </message>
        <message>
            <source>Compare quality…</source>
            <translation>Qualität vergleichen…</translation>
        </message>
        <message>
            <source>Unfinished downloads</source>
            <translation>Unvollständige Downloads</translation>
        </message>
        <message>
            <source>Could not list the models: {error}</source>
            <translation>Die Modelle konnten nicht aufgelistet werden: {error}</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>Wird geprüft…</translation>
        </message>
        <message>
            <source>Not checked: another computer's engine is in use</source>
            <translation>Nicht geprüft: Die Engine eines anderen Computers wird verwendet</translation>
        </message>
        <message>
            <source>&lt;b&gt;{name}&lt;/b&gt; — {kind}, {size}</source>
            <translation>&lt;b&gt;{name}&lt;/b&gt; — {kind}, {size}</translation>
        </message>
        <message>
            <source>Vision: reads images with {projector}, beside it</source>
            <translation>Vision: liest Bilder mit {projector}, der daneben liegt</translation>
        </message>
        <message>
            <source>Replies at {speed}</source>
            <translation>Antwortet mit {speed}</translation>
        </message>
        <message>
            <source>Cove deletes only the models in its models folder.</source>
            <translation>Cove löscht nur die Modelle in seinem Modellordner.</translation>
        </message>
        <message>
            <source>This model does not fit in the memory that is free.</source>
            <translation>Dieses Modell passt nicht in den freien Speicher.</translation>
        </message>
        <message>
            <source>How much {name} loses in another build: both answer the same questions</source>
            <translation>Wie viel {name} in einer anderen Fassung verliert: Beide beantworten dieselben Fragen</translation>
        </message>
        <message>
            <source>Needs a second build of this model (another quantization).</source>
            <translation>Braucht eine zweite Fassung dieses Modells (eine andere Quantisierung).</translation>
        </message>
        <message>
            <source>{name} is the model loaded in the chat, so it cannot be deleted. Load another model first, then delete this one.</source>
            <translation>{name} ist das im Chat geladene Modell und kann daher nicht gelöscht werden. Laden Sie zuerst ein anderes Modell und löschen Sie dann dieses.</translation>
        </message>
        <message>
            <source>Delete {name} ({size}) from {where}? Downloading it again fetches the whole file.</source>
            <translation>{name} ({size}) aus {where} löschen? Beim erneuten Herunterladen wird die gesamte Datei geladen.</translation>
        </message>
        <message>
            <source>Its vision projector goes with it unless another model uses it.</source>
            <translation>Sein Vision-Projektor wird mitgelöscht, sofern kein anderes Modell ihn nutzt.</translation>
        </message>
        <message>
            <source>Delete model</source>
            <translation>Modell löschen</translation>
        </message>
        <message>
            <source>{name} and its vision projector</source>
            <translation>{name} und sein Vision-Projektor</translation>
        </message>
        <message>
            <source>Deleted {what}: {size} freed.</source>
            <translation>{what} gelöscht: {size} freigegeben.</translation>
        </message>
        <message>
            <source>{name} was not deleted. {error}</source>
            <translation>{name} wurde nicht gelöscht. {error}</translation>
        </message>
        <message>
            <source>Could not discard {name}: {error}</source>
            <translation>{name} konnte nicht verworfen werden: {error}</translation>
        </message>
        <message>
            <source>Discarded the partial download of {name}: {size} freed.</source>
            <translation>Unvollständiger Download von {name} verworfen: {size} freigegeben.</translation>
        </message>
        <message>
            <source>Downloads ({count})</source>
            <translation>Downloads ({count})</translation>
        </message>
        <message>
            <source>{model} reads images with {projector}, beside it.</source>
            <translation>{model} liest Bilder mit {projector}, der daneben liegt.</translation>
        </message>
        <message>
            <source>Copying {name} into the models folder…</source>
            <translation>{name} wird in den Modellordner kopiert…</translation>
        </message>
        <message>
            <source>Imported {name} with its vision projector {projector}: in {where}.</source>
            <translation>{name} mit seinem Vision-Projektor {projector} importiert: in {where}.</translation>
        </message>
        <message>
            <source>Imported {name}: a copy is in {where}.</source>
            <translation>{name} importiert: Eine Kopie liegt in {where}.</translation>
        </message>
        <message>
            <source>Reads prompts at about {tps} tokens/s.</source>
            <translation>Liest Prompts mit etwa {tps} Token/s.</translation>
        </message>
        <message>
            <source>Measured on this computer, in its latest run. {prompt}</source>
            <translation>Auf diesem Computer gemessen, beim letzten Lauf. {prompt}</translation>
        </message>
        <message>
            <source>predicted</source>
            <translation>vorhergesagt</translation>
        </message>
        <message>
            <source>Built into Cove ({file})</source>
            <translation>In Cove integriert ({file})</translation>
        </message>
        <message>
            <source>● loaded</source>
            <translation>● geladen</translation>
        </message>
        <message>
            <source>Vision</source>
            <translation>Vision</translation>
        </message>
        <message>
            <source>{format}, quantization {code}</source>
            <translation>{format}, Quantisierung {code}</translation>
        </message>
        <message>
            <source>{words} ({codes})</source>
            <translation>{words} ({codes})</translation>
        </message>
    </context>
    <context>
        <name>Models in memory</name>
        <message>
            <source>In memory</source>
            <translation>Im Speicher</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>Größe</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Kontext</translation>
        </message>
        <message>
            <source>Replies at once</source>
            <translation>Gleichzeitige Antworten</translation>
        </message>
        <message>
            <source>Stays</source>
            <translation>Verbleibt</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} Token</translation>
        </message>
        <message>
            <source>Unload</source>
            <translation>Entladen</translation>
        </message>
        <message>
            <source>Free the memory {name} holds</source>
            <translation>Den von {name} belegten Speicher freigeben</translation>
        </message>
        <message>
            <source>{running} of {parallel} replies</source>
            <translation>{running} von {parallel} Antworten</translation>
        </message>
        <message>
            <source>{running} of 1 reply</source>
            <translation>{running} von 1 Antwort</translation>
        </message>
        <message>
            <source>{replies}, {n} waiting</source>
            <translation>{replies}, {n} wartend</translation>
        </message>
        <message>
            <source>unloaded in {time}</source>
            <translation>wird in {time} entladen</translation>
        </message>
        <message>
            <source>until unloaded</source>
            <translation>bis zum Entladen</translation>
        </message>
        <message>
            <source>{time} once idle</source>
            <translation>{time} nach Inaktivität</translation>
        </message>
        <message>
            <source>{n} s</source>
            <translation>{n} s</translation>
        </message>
        <message>
            <source>{n} min</source>
            <translation>{n} min</translation>
        </message>
    </context>
    <context>
        <name>Page header</name>
        <message>
            <source>← Chat</source>
            <translation>← Chat</translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>Zurück zum Chat</translation>
        </message>
    </context>
    <context>
        <name>Presets</name>
        <message>
            <source>Preset</source>
            <translation>Vorlage</translation>
        </message>
        <message>
            <source>Start the chat from a preset: a system prompt and sampling settings</source>
            <translation>Den Chat mit einer Vorlage beginnen: ein Systemprompt und Sampling-Einstellungen</translation>
        </message>
        <message>
            <source>Preset: a system prompt and sampling settings (and sometimes a model) to start from</source>
            <translation>Vorlage: ein Systemprompt und Sampling-Einstellungen (manchmal auch ein Modell) als Ausgangspunkt</translation>
        </message>
        <message>
            <source>Choose a preset</source>
            <translation>Vorlage auswählen</translation>
        </message>
        <message>
            <source>{name} (default)</source>
            <translation>{name} (Standard)</translation>
        </message>
        <message>
            <source>Presets</source>
            <translation>Vorlagen</translation>
        </message>
        <message>
            <source>Presets menu</source>
            <translation>Vorlagenmenü</translation>
        </message>
        <message>
            <source>Save, import, export or set the default preset</source>
            <translation>Vorlagen speichern, importieren, exportieren oder die Standardvorlage festlegen</translation>
        </message>
        <message>
            <source>Save current as preset…</source>
            <translation>Aktuelle Einstellungen als Vorlage speichern…</translation>
        </message>
        <message>
            <source>Set as default for new chats</source>
            <translation>Als Standard für neue Chats festlegen</translation>
        </message>
        <message>
            <source>Start new chats without a preset</source>
            <translation>Neue Chats ohne Vorlage beginnen</translation>
        </message>
        <message>
            <source>Delete preset</source>
            <translation>Vorlage löschen</translation>
        </message>
        <message>
            <source>Import presets…</source>
            <translation>Vorlagen importieren…</translation>
        </message>
        <message>
            <source>Export presets…</source>
            <translation>Vorlagen exportieren…</translation>
        </message>
    </context>
    <context>
        <name>Quantization</name>
        <message>
            <source>original quality</source>
            <translation>Originalqualität</translation>
        </message>
        <message>
            <source>near original quality</source>
            <translation>nahezu Originalqualität</translation>
        </message>
        <message>
            <source>very high quality</source>
            <translation>sehr hohe Qualität</translation>
        </message>
        <message>
            <source>high quality</source>
            <translation>hohe Qualität</translation>
        </message>
        <message>
            <source>medium quality</source>
            <translation>mittlere Qualität</translation>
        </message>
        <message>
            <source>low quality</source>
            <translation>niedrige Qualität</translation>
        </message>
        <message>
            <source>lowest quality</source>
            <translation>niedrigste Qualität</translation>
        </message>
        <message>
            <source>for models trained at this precision</source>
            <translation>für Modelle, die mit dieser Genauigkeit trainiert wurden</translation>
        </message>
        <message>
            <source>{n}-bit</source>
            <translation>{n}-Bit</translation>
        </message>
        <message>
            <source>{bits} whole numbers</source>
            <translation>{bits}-Ganzzahlen</translation>
        </message>
        <message>
            <source>{bits}, {quality}</source>
            <translation>{bits}, {quality}</translation>
        </message>
        <message>
            <source>{words} ({code})</source>
            <translation>{words} ({code})</translation>
        </message>
        <message>
            <source>{bits} ({code}, {share} of the weights)</source>
            <translation>{bits} ({code}, {share} der Gewichte)</translation>
        </message>
        <message>
            <source>{bits} ({code}, {share})</source>
            <translation>{bits} ({code}, {share})</translation>
        </message>
        <message>
            <source>All {head}</source>
            <translation>Vollständig {head}</translation>
        </message>
        <message>
            <source>Mostly {head}; also {others}</source>
            <translation>Überwiegend {head}; außerdem {others}</translation>
        </message>
        <message>
            <source>Mixed: {head}, {others}</source>
            <translation>Gemischt: {head}, {others}</translation>
        </message>
    </context>
    <context>
        <name>Saved state</name>
        <message>
            <source>After each reply Cove keeps the model's working memory of the conversation on this computer, so that reopening a long chat, after a restart or from another chat, continues at once instead of reading the whole conversation again. It holds what the chat said: deleting a chat deletes its saved state, and Clear removes all of it.</source>
            <translation>Nach jeder Antwort speichert Cove das Arbeitsgedächtnis des Modells zur Unterhaltung auf diesem Computer. So geht ein langer Chat, den Sie nach einem Neustart oder aus einem anderen Chat heraus wieder öffnen, sofort weiter, statt die ganze Unterhaltung erneut einzulesen. Der gespeicherte Zustand enthält, was im Chat gesagt wurde: Wird ein Chat gelöscht, wird auch sein gespeicherter Zustand gelöscht, und „Gespeicherten Zustand leeren“ entfernt alles.</translation>
        </message>
        <message>
            <source>Saved conversation state</source>
            <translation>Gespeicherter Zustand der Unterhaltungen</translation>
        </message>
        <message>
            <source>Off</source>
            <translation>Aus</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Wird gelesen…</translation>
        </message>
        <message>
            <source>Clear saved state</source>
            <translation>Gespeicherten Zustand leeren</translation>
        </message>
        <message>
            <source>Keep up to</source>
            <translation>Maximal behalten</translation>
        </message>
        <message>
            <source>In use</source>
            <translation>Belegt</translation>
        </message>
        <message>
            <source>Kept by the engine on {where}, not here</source>
            <translation>Wird von der Engine auf {where} gespeichert, nicht hier</translation>
        </message>
        <message>
            <source>Off for this engine</source>
            <translation>Für diese Engine ausgeschaltet</translation>
        </message>
        <message>
            <source>Nothing saved</source>
            <translation>Nichts gespeichert</translation>
        </message>
        <message>
            <source>Unknown ({reason})</source>
            <translation>Unbekannt ({reason})</translation>
        </message>
        <message>
            <source>Clearing…</source>
            <translation>Wird geleert…</translation>
        </message>
    </context>
    <context>
        <name>Settings</name>
        <message>
            <source>Follow the system</source>
            <translation>Wie das System</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Hell</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Dunkel</translation>
        </message>
        <message>
            <source>Appearance</source>
            <translation>Darstellung</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Design</translation>
        </message>
        <message>
            <source>Text size</source>
            <translation>Textgröße</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Sprache</translation>
        </message>
        <message>
            <source>The system's language</source>
            <translation>Sprache des Systems</translation>
        </message>
        <message>
            <source>The language of Cove's window. Replies come in the language you write in.</source>
            <translation>Die Sprache von Coves Fenster. Antworten kommen in der Sprache, in der Sie schreiben.</translation>
        </message>
        <message>
            <source>The new language is used when Cove starts again.</source>
            <translation>Die neue Sprache wird beim nächsten Start von Cove verwendet.</translation>
        </message>
        <message>
            <source>Restart Cove now</source>
            <translation>Cove jetzt neu starten</translation>
        </message>
        <message>
            <source>Privacy</source>
            <translation>Datenschutz</translation>
        </message>
        <message>
            <source>Everything stays on this computer. What you type, the replies, your documents and your chat history never leave it: there is no account and no telemetry.</source>
            <translation>Alles bleibt auf diesem Computer. Ihre Eingaben, die Antworten, Ihre Dokumente und Ihr Chatverlauf verlassen ihn nie: Es gibt kein Konto und keine Telemetrie.</translation>
        </message>
        <message>
            <source>When Cove uses the network</source>
            <translation>Wann Cove das Netzwerk nutzt</translation>
        </message>
        <message>
            <source>When you download a model: only the files you chose.</source>
            <translation>Wenn Sie ein Modell herunterladen: nur die von Ihnen gewählten Dateien.</translation>
        </message>
        <message>
            <source>When you choose to use another computer's engine (Settings, Engine).</source>
            <translation>Wenn Sie die Engine eines anderen Computers verwenden (Einstellungen, Engine).</translation>
        </message>
        <message>
            <source>When you share this computer's engine on your network: other computers need its key.</source>
            <translation>Wenn Sie die Engine dieses Computers in Ihrem Netzwerk freigeben: Andere Computer benötigen ihren Schlüssel.</translation>
        </message>
        <message>
            <source>The reporting switches of the libraries Cove uses are held off, whatever this computer's settings say: {names}.</source>
            <translation>Die Berichtsfunktionen der von Cove genutzten Bibliotheken bleiben ausgeschaltet, unabhängig von den Einstellungen dieses Computers: {names}.</translation>
        </message>
        <message>
            <source>Your data</source>
            <translation>Ihre Daten</translation>
        </message>
        <message>
            <source>Chats, documents' indexes, models and settings are kept in {folder}.</source>
            <translation>Chats, Dokumentindizes, Modelle und Einstellungen werden in {folder} gespeichert.</translation>
        </message>
        <message>
            <source>Open the data folder</source>
            <translation>Datenordner öffnen</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Einstellungen</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Tastenkürzel</translation>
        </message>
        <message>
            <source>Welcome page</source>
            <translation>Willkommensseite</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>Einstellungsbereiche</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>Engine</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>MCP-Server</translation>
        </message>
        <message>
            <source>Saved state</source>
            <translation>Gespeicherter Zustand</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Daten</translation>
        </message>
    </context>
    <context>
        <name>Shortcuts</name>
        <message>
            <source>Start a new chat</source>
            <translation>Neuen Chat beginnen</translation>
        </message>
        <message>
            <source>Send the message</source>
            <translation>Nachricht senden</translation>
        </message>
        <message>
            <source>A new line in the message</source>
            <translation>Neue Zeile in der Nachricht</translation>
        </message>
        <message>
            <source>Stop the reply being written; close find; cancel an edit</source>
            <translation>Laufende Antwort stoppen; Suche schließen; Bearbeitung abbrechen</translation>
        </message>
        <message>
            <source>Choose the chat's model</source>
            <translation>Modell des Chats auswählen</translation>
        </message>
        <message>
            <source>Find in this chat (Enter: next match, Shift+Enter: previous)</source>
            <translation>In diesem Chat suchen (Enter: nächster Treffer, Shift+Enter: vorheriger)</translation>
        </message>
        <message>
            <source>Search every chat</source>
            <translation>Alle Chats durchsuchen</translation>
        </message>
        <message>
            <source>Bring back the message just deleted</source>
            <translation>Gerade gelöschte Nachricht wiederherstellen</translation>
        </message>
        <message>
            <source>Larger or smaller text</source>
            <translation>Text vergrößern oder verkleinern</translation>
        </message>
        <message>
            <source>The default text size</source>
            <translation>Standard-Textgröße</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Einstellungen</translation>
        </message>
        <message>
            <source>Rename the chat or folder chosen in the sidebar</source>
            <translation>Den in der Seitenleiste gewählten Chat oder Ordner umbenennen</translation>
        </message>
        <message>
            <source>The menu of the chat or folder chosen in the sidebar</source>
            <translation>Das Menü des in der Seitenleiste gewählten Chats oder Ordners</translation>
        </message>
        <message>
            <source>This list of shortcuts</source>
            <translation>Diese Liste der Tastenkürzel</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Tastenkürzel</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>Tasten</translation>
        </message>
        <message>
            <source>What they do</source>
            <translation>Funktion</translation>
        </message>
    </context>
    <context>
        <name>Sidebar</name>
        <message>
            <source>Folder name</source>
            <translation>Ordnername</translation>
        </message>
        <message>
            <source>Chat title</source>
            <translation>Chattitel</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Umbenennen</translation>
        </message>
        <message>
            <source>1 chat</source>
            <translation>1 Chat</translation>
        </message>
        <message>
            <source>{count} chats</source>
            <translation>{count} Chats</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>Neue Unterhaltung beginnen (Ctrl+N)</translation>
        </message>
        <message>
            <source>Search conversations</source>
            <translation>Unterhaltungen durchsuchen</translation>
        </message>
        <message>
            <source>A folder to drag chats into</source>
            <translation>Ein Ordner, in den Sie Chats ziehen können</translation>
        </message>
        <message>
            <source>Keep the selected chat at the top of the list</source>
            <translation>Den ausgewählten Chat oben in der Liste halten</translation>
        </message>
        <message>
            <source>Conversations</source>
            <translation>Unterhaltungen</translation>
        </message>
        <message>
            <source>No conversations yet.</source>
            <translation>Noch keine Unterhaltungen.</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modelle</translation>
        </message>
        <message>
            <source>Installed models and whether they fit here</source>
            <translation>Installierte Modelle und ob sie hier passen</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>Hardware</translation>
        </message>
        <message>
            <source>What this computer has and what Cove uses</source>
            <translation>Was dieser Computer bietet und was Cove davon nutzt</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>Dokumente</translation>
        </message>
        <message>
            <source>Your files, indexed to ask questions about</source>
            <translation>Ihre Dateien, indexiert, um Fragen dazu zu stellen</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Einstellungen</translation>
        </message>
        <message>
            <source>Appearance, language, engine, MCP servers, privacy (Ctrl+,)</source>
            <translation>Darstellung, Sprache, Engine, MCP-Server, Datenschutz (Ctrl+,)</translation>
        </message>
        <message>
            <source>open</source>
            <translation>geöffnet</translation>
        </message>
        <message>
            <source>closed</source>
            <translation>geschlossen</translation>
        </message>
        <message>
            <source>Folder, {chats}, {state}</source>
            <translation>Ordner, {chats}, {state}</translation>
        </message>
        <message>
            <source>In the folder {name}</source>
            <translation>Im Ordner {name}</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>Nichts gefunden.</translation>
        </message>
        <message>
            <source>Cove is answering here</source>
            <translation>Cove antwortet hier</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>Lösen</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>Anheften</translation>
        </message>
        <message>
            <source>Export as Markdown…</source>
            <translation>Als Markdown exportieren…</translation>
        </message>
        <message>
            <source>Export as JSON…</source>
            <translation>Als JSON exportieren…</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>Löschen…</translation>
        </message>
        <message>
            <source>Move to folder</source>
            <translation>In Ordner verschieben</translation>
        </message>
        <message>
            <source>New folder…</source>
            <translation>Neuer Ordner…</translation>
        </message>
        <message>
            <source>Remove from folder</source>
            <translation>Aus Ordner entfernen</translation>
        </message>
        <message>
            <source>Collapse</source>
            <translation>Einklappen</translation>
        </message>
        <message>
            <source>Expand</source>
            <translation>Ausklappen</translation>
        </message>
        <message>
            <source>Rename folder</source>
            <translation>Ordner umbenennen</translation>
        </message>
        <message>
            <source>New folder</source>
            <translation>Neuer Ordner</translation>
        </message>
        <message>
            <source>Delete folder (keeps its chats)</source>
            <translation>Ordner löschen (Chats bleiben erhalten)</translation>
        </message>
        <message>
            <source>Delete chat</source>
            <translation>Chat löschen</translation>
        </message>
        <message>
            <source>Delete this conversation and all its messages? This cannot be undone.</source>
            <translation>Diese Unterhaltung und alle ihre Nachrichten löschen? Dies kann nicht rückgängig gemacht werden.</translation>
        </message>
        <message>
            <source>Nothing to export yet: send a message first.</source>
            <translation>Noch nichts zu exportieren: Senden Sie zuerst eine Nachricht.</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>Chat exportieren</translation>
        </message>
        <message>
            <source>Import chat</source>
            <translation>Chat importieren</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>JSON-Dateien (*.json);;Alle Dateien (*)</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>Der Chatverlauf wird noch geöffnet; versuchen Sie es gleich noch einmal.</translation>
        </message>
        <message>
            <source>Moved out of the folder</source>
            <translation>Aus dem Ordner verschoben</translation>
        </message>
        <message>
            <source>Moved to {folder}</source>
            <translation>Nach {folder} verschoben</translation>
        </message>
        <message>
            <source>Folder deleted; its chats are back in the list</source>
            <translation>Ordner gelöscht; seine Chats sind wieder in der Liste</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Neuer Chat</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>Heute</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>Gestern</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>Letzte 7 Tage</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>Älter</translation>
        </message>
        <message>
            <source>Untitled</source>
            <translation>Ohne Titel</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>Angeheftet</translation>
        </message>
        <message>
            <source>Folders</source>
            <translation>Ordner</translation>
        </message>
        <message>
            <source>No chats yet: drag one here</source>
            <translation>Noch keine Chats: Ziehen Sie einen hierher</translation>
        </message>
        <message>
            <source>{name} {n}</source>
            <translation>{name} {n}</translation>
        </message>
    </context>
    <context>
        <name>Sources</name>
        <message>
            <source>page {page}</source>
            <translation>Seite {page}</translation>
        </message>
        <message>
            <source>Asked while the collection was still being indexed: files not read yet could not be searched.</source>
            <translation>Gefragt, während die Sammlung noch indexiert wurde: Noch nicht gelesene Dateien konnten nicht durchsucht werden.</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Quellen</translation>
        </message>
        <message>
            <source>(the answer cites none; these hold what it says)</source>
            <translation>(die Antwort zitiert keine; diese enthalten, was sie aussagt)</translation>
        </message>
        <message>
            <source>Passages searched</source>
            <translation>Durchsuchte Textstellen</translation>
        </message>
        <message>
            <source>Closest I found</source>
            <translation>Nächstliegende Treffer</translation>
        </message>
        <message>
            <source>Also given to the model:</source>
            <translation>Ebenfalls an das Modell übergeben:</translation>
        </message>
    </context>
    <context>
        <name>Start</name>
        <message>
            <source>Cove is already open on this data folder; it was brought to the front.</source>
            <translation>Cove ist mit diesem Datenordner bereits geöffnet; das Fenster wurde nach vorne geholt.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder but did not answer; it may still be starting. Try again in a moment.</source>
            <translation>Cove ist mit diesem Datenordner bereits geöffnet, hat aber nicht geantwortet; vielleicht startet es noch. Versuchen Sie es gleich noch einmal.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder (process {pid}) but did not answer; it may still be starting, or not responding: end that process if it does not come back.</source>
            <translation>Cove ist mit diesem Datenordner bereits geöffnet (Prozess {pid}), hat aber nicht geantwortet; vielleicht startet es noch oder reagiert nicht: Beenden Sie diesen Prozess, wenn es nicht wieder reagiert.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder: close it, or give this run a data folder of its own (COVE_DATA_DIR).</source>
            <translation>Cove ist mit diesem Datenordner bereits geöffnet: Schließen Sie es oder geben Sie diesem Lauf einen eigenen Datenordner (COVE_DATA_DIR).</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder (process {pid}): close it, or give this run a data folder of its own (COVE_DATA_DIR).</source>
            <translation>Cove ist mit diesem Datenordner bereits geöffnet (Prozess {pid}): Schließen Sie es oder geben Sie diesem Lauf einen eigenen Datenordner (COVE_DATA_DIR).</translation>
        </message>
        <message>
            <source>Not found, not attached: {names}</source>
            <translation>Nicht gefunden, nicht angehängt: {names}</translation>
        </message>
    </context>
    <context>
        <name>Status</name>
        <message>
            <source>no model</source>
            <translation>kein Modell</translation>
        </message>
        <message>
            <source>on {device}</source>
            <translation>auf {device}</translation>
        </message>
        <message>
            <source>Runs with {backend} on {device}.</source>
            <translation>Läuft mit {backend} auf {device}.</translation>
        </message>
        <message>
            <source>Context {n} tokens. Click to choose another model.</source>
            <translation>Kontext {n} Token. Klicken, um ein anderes Modell zu wählen.</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>Modell auswählen</translation>
        </message>
        <message>
            <source>last long prompt: {n} tokens read at {rate} tokens/s</source>
            <translation>letzter langer Prompt: {n} Tokens gelesen mit {rate} Tokens/s</translation>
        </message>
        <message>
            <source>{rate} tokens/s · first token {ttft} s</source>
            <translation>{rate} Tokens/s · erstes Token {ttft} s</translation>
        </message>
        <message>
            <source>Context {used} / {limit}</source>
            <translation>Kontext {used} / {limit}</translation>
        </message>
        <message>
            <source>Context ~{used} tokens</source>
            <translation>Kontext ~{used} Tokens</translation>
        </message>
        <message>
            <source>Tokens this conversation uses of the model's context window.</source>
            <translation>Tokens, die dieses Gespräch vom Kontextfenster des Modells belegt.</translation>
        </message>
    </context>
    <context>
        <name>Tool calls</name>
        <message>
            <source>Waiting for your answer</source>
            <translation>Wartet auf Ihre Antwort</translation>
        </message>
        <message>
            <source>Running…</source>
            <translation>Läuft…</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Fertig</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Fehlgeschlagen</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Abgelehnt</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Argumente</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>Ergebnis</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>Einmal erlauben</translation>
        </message>
        <message>
            <source>Always allow this tool</source>
            <translation>Dieses Werkzeug immer erlauben</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Ablehnen</translation>
        </message>
        <message>
            <source>Run {tool} from the {server} server?</source>
            <translation>{tool} vom Server {server} ausführen?</translation>
        </message>
        <message>
            <source>… ({n} characters in all)</source>
            <translation>… ({n} Zeichen insgesamt)</translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>Ausblenden</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>Details</translation>
        </message>
    </context>
    <context>
        <name>Unfinished downloads</name>
        <message>
            <source>Download</source>
            <translation>Download</translation>
        </message>
        <message>
            <source>Fetched</source>
            <translation>Geladen</translation>
        </message>
        <message>
            <source>{done} of {total} · {disk} on disk</source>
            <translation>{done} von {total} · {disk} auf dem Datenträger</translation>
        </message>
        <message>
            <source>{done} · {disk} on disk</source>
            <translation>{done} · {disk} auf dem Datenträger</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Fortsetzen</translation>
        </message>
        <message>
            <source>Discard</source>
            <translation>Verwerfen</translation>
        </message>
    </context>
    <context>
        <name>Welcome</name>
        <message>
            <source>{cpu} (1 core)</source>
            <translation>{cpu} (1 Kern)</translation>
        </message>
        <message>
            <source>{cpu} ({n} cores)</source>
            <translation>{cpu} ({n} Kerne)</translation>
        </message>
        <message>
            <source>{size} RAM</source>
            <translation>{size} RAM</translation>
        </message>
        <message>
            <source>Models run best here on {device}. Cove checks every model against the memory that is free before loading it.</source>
            <translation>Modelle laufen hier am besten auf {device}. Cove prüft jedes Modell vor dem Laden anhand des freien Speichers.</translation>
        </message>
        <message>
            <source>no graphics card that Cove can use</source>
            <translation>keine Grafikkarte, die Cove nutzen kann</translation>
        </message>
        <message>
            <source>Welcome to Cove</source>
            <translation>Willkommen bei Cove</translation>
        </message>
        <message>
            <source>Everything stays on this computer.</source>
            <translation>Alles bleibt auf diesem Computer.</translation>
        </message>
        <message>
            <source>Cove runs language models on this machine. What you type, the replies and your chat history never leave it: there is no account, no telemetry, and Cove opens no network connection unless you ask it to: to download a model, or to use another computer's engine.</source>
            <translation>Cove führt Sprachmodelle auf diesem Rechner aus. Ihre Eingaben, die Antworten und Ihr Chatverlauf verlassen ihn nie: Es gibt kein Konto, keine Telemetrie, und Cove öffnet keine Netzwerkverbindung, außer Sie veranlassen es: um ein Modell herunterzuladen oder die Engine eines anderen Computers zu verwenden.</translation>
        </message>
        <message>
            <source>What this computer can run</source>
            <translation>Was dieser Computer ausführen kann</translation>
        </message>
        <message>
            <source>Looking at this computer…</source>
            <translation>Dieser Computer wird untersucht…</translation>
        </message>
        <message>
            <source>Start chatting</source>
            <translation>Chat beginnen</translation>
        </message>
        <message>
            <source>The hardware check failed ({reason}); Cove will use the processor.</source>
            <translation>Die Hardwareprüfung ist fehlgeschlagen ({reason}); Cove verwendet den Prozessor.</translation>
        </message>
    </context>
    <context>
        <name>Window</name>
        <message>
            <source>Export chat as Markdown…</source>
            <translation>Chat als Markdown exportieren…</translation>
        </message>
        <message>
            <source>Export chat as JSON…</source>
            <translation>Chat als JSON exportieren…</translation>
        </message>
        <message>
            <source>Import chat…</source>
            <translation>Chat importieren…</translation>
        </message>
        <message>
            <source>Rename chat</source>
            <translation>Chat umbenennen</translation>
        </message>
        <message>
            <source>Delete chat…</source>
            <translation>Chat löschen…</translation>
        </message>
        <message>
            <source>MCP servers {names} could not start: see Settings › MCP servers</source>
            <translation>Die MCP-Server {names} konnten nicht starten: siehe Einstellungen › MCP-Server</translation>
        </message>
        <message>
            <source>MCP server {name} could not start: see Settings › MCP servers</source>
            <translation>Der MCP-Server {name} konnte nicht starten: siehe Einstellungen › MCP-Server</translation>
        </message>
        <message>
            <source>The MCP server list could not be read: {reason}</source>
            <translation>Die MCP-Serverliste konnte nicht gelesen werden: {reason}</translation>
        </message>
        <message>
            <source>No chat history</source>
            <translation>Kein Chatverlauf</translation>
        </message>
        <message>
            <source>Cove's engine</source>
            <translation>Engine von Cove</translation>
        </message>
        <message>
            <source>Opening the chat history…</source>
            <translation>Chatverlauf wird geöffnet…</translation>
        </message>
        <message>
            <source>No engine</source>
            <translation>Keine Engine</translation>
        </message>
        <message>
            <source>The starter model, SmolLM2 135M: {verdict}.</source>
            <translation>Das Startmodell, SmolLM2 135M: {verdict}.</translation>
        </message>
        <message>
            <source>The starter model, SmolLM2 135M, is loading in the background.</source>
            <translation>Das Startmodell, SmolLM2 135M, wird im Hintergrund geladen.</translation>
        </message>
        <message>
            <source>the starter model</source>
            <translation>das Startmodell</translation>
        </message>
        <message>
            <source>The model is loading. You can write now; the reply starts once it is ready.</source>
            <translation>Das Modell wird geladen. Sie können schon schreiben; die Antwort beginnt, sobald es bereit ist.</translation>
        </message>
        <message>
            <source>Loading cancelled.</source>
            <translation>Laden abgebrochen.</translation>
        </message>
        <message>
            <source>Engine stopped</source>
            <translation>Engine beendet</translation>
        </message>
        <message>
            <source>The engine was restarted.</source>
            <translation>Die Engine wurde neu gestartet.</translation>
        </message>
    </context>
</TS>
