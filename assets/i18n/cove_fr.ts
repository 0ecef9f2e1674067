<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="fr">
    <context>
        <name>Attachments</name>
        <message>
            <source>Images ({patterns})</source>
            <translation>Images ({patterns})</translation>
        </message>
        <message>
            <source>Pasted image</source>
            <translation>Image collée</translation>
        </message>
        <message>
            <source>Remove {name}</source>
            <translation>Retirer {name}</translation>
        </message>
    </context>
    <context>
        <name>Banner</name>
        <message>
            <source>The engine stopped unexpectedly.</source>
            <translation>Le moteur s’est arrêté de manière inattendue.</translation>
        </message>
        <message>
            <source>The engine stopped</source>
            <translation>Le moteur s’est arrêté</translation>
        </message>
        <message>
            <source>Your conversations are saved, including the reply that was being written.</source>
            <translation>Vos conversations sont enregistrées, y compris la réponse en cours de rédaction.</translation>
        </message>
        <message>
            <source>Show log</source>
            <translation>Afficher le journal</translation>
        </message>
        <message>
            <source>Restart engine</source>
            <translation>Redémarrer le moteur</translation>
        </message>
        <message>
            <source>The engine logged no error before it stopped.</source>
            <translation>Le moteur n’a consigné aucune erreur avant de s’arrêter.</translation>
        </message>
        <message>
            <source>Restarting…</source>
            <translation>Redémarrage…</translation>
        </message>
        <message>
            <source>Hide log</source>
            <translation>Masquer le journal</translation>
        </message>
    </context>
    <context>
        <name>Chat</name>
        <message>
            <source>No documents</source>
            <translation>Aucun document</translation>
        </message>
        <message>
            <source>Attach documents (PDF, Word, HTML, Markdown, text) for replies to answer from, or images (up to {n} a message); you can also drop them here</source>
            <translation>Joindre des documents (PDF, Word, HTML, Markdown, texte) sur lesquels les réponses s’appuieront, ou des images ({n} au maximum par message) ; vous pouvez aussi les déposer ici</translation>
        </message>
        <message>
            <source>Attach files</source>
            <translation>Joindre des fichiers</translation>
        </message>
        <message>
            <source>Message Cove  (Enter to send, Shift+Enter for a new line)</source>
            <translation>Écrire à Cove  (Enter pour envoyer, Shift+Enter pour aller à la ligne)</translation>
        </message>
        <message>
            <source>Message</source>
            <translation>Message</translation>
        </message>
        <message>
            <source>Send</source>
            <translation>Envoyer</translation>
        </message>
        <message>
            <source>Answer from</source>
            <translation>Répondre à partir de</translation>
        </message>
        <message>
            <source>Answer from a document collection: the reply cites its passages by file and page</source>
            <translation>Répondre à partir d’une collection de documents : la réponse cite ses passages par fichier et par page</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Arrêter</translation>
        </message>
        <message>
            <source>Stop the reply (Esc)</source>
            <translation>Arrêter la réponse (Esc)</translation>
        </message>
        <message>
            <source>Send (Enter)</source>
            <translation>Envoyer (Enter)</translation>
        </message>
        <message>
            <source>Documents and images ({patterns})</source>
            <translation>Documents et images ({patterns})</translation>
        </message>
        <message>
            <source>Documents ({patterns})</source>
            <translation>Documents ({patterns})</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Tous les fichiers (*)</translation>
        </message>
        <message>
            <source>A message takes up to {max} images: 1 was not attached.</source>
            <translation>Un message accepte {max} images au maximum : 1 image n’a pas été jointe.</translation>
        </message>
        <message>
            <source>A message takes up to {max} images: {n} were not attached.</source>
            <translation>Un message accepte {max} images au maximum : {n} images n’ont pas été jointes.</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>L’historique des discussions est encore en cours d’ouverture ; réessayez dans un instant.</translation>
        </message>
        <message>
            <source>That conversation was deleted.</source>
            <translation>Cette conversation a été supprimée.</translation>
        </message>
        <message>
            <source>Exported to {path}</source>
            <translation>Exporté vers {path}</translation>
        </message>
        <message>
            <source>{file} could not be read as JSON: {reason}</source>
            <translation>Impossible de lire {file} en tant que JSON : {reason}</translation>
        </message>
        <message>
            <source>{file} was not imported: {reason}</source>
            <translation>{file} n’a pas été importé : {reason}</translation>
        </message>
        <message>
            <source>Imported {title}</source>
            <translation>Importé : {title}</translation>
        </message>
        <message>
            <source>Cove is still answering in this chat. Stop the reply (Esc), wait for it, or start a new chat meanwhile.</source>
            <translation>Cove est encore en train de répondre dans cette discussion. Arrêtez la réponse (Esc), attendez-la ou commencez une nouvelle discussion en attendant.</translation>
        </message>
        <message>
            <source>Branched into a new chat: {title}</source>
            <translation>Branche créée dans une nouvelle discussion : {title}</translation>
        </message>
        <message>
            <source>Loading {model}…</source>
            <translation>Chargement de {model}…</translation>
        </message>
        <message>
            <source>Waiting for the model to finish loading…</source>
            <translation>En attente de la fin du chargement du modèle…</translation>
        </message>
        <message>
            <source>Waiting for the engine to start…</source>
            <translation>En attente du démarrage du moteur…</translation>
        </message>
        <message>
            <source>Searching this chat's files…</source>
            <translation>Recherche dans les fichiers de cette discussion…</translation>
        </message>
        <message>
            <source>Searching {name}…</source>
            <translation>Recherche dans {name}…</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Réflexion…</translation>
        </message>
        <message>
            <source>That tool call is no longer waiting for an answer.</source>
            <translation>Cet appel d’outil n’attend plus de réponse.</translation>
        </message>
        <message>
            <source>The reply failed.</source>
            <translation>La réponse a échoué.</translation>
        </message>
        <message>
            <source>{model} cannot see images, so this chat's images are left out of its replies. Load a vision model ({examples}) to ask about them.</source>
            <translation>{model} ne voit pas les images : celles de cette discussion ne sont donc pas prises en compte dans ses réponses. Chargez un modèle de vision ({examples}) pour poser des questions à leur sujet.</translation>
        </message>
        <message>
            <source>The conversation fills {share} of the {limit}-token context: the oldest messages will be left out soon (the system prompt is kept). Start a new chat, or load the model with a larger context.</source>
            <translation>La conversation occupe {share} du contexte de {limit} jetons : les messages les plus anciens seront bientôt écartés (le prompt système est conservé). Commencez une nouvelle discussion ou chargez le modèle avec un contexte plus grand.</translation>
        </message>
        <message>
            <source>{name}: {state}</source>
            <translation>{name}: {state}</translation>
        </message>
        <message>
            <source>Remove {name} from this chat</source>
            <translation>Retirer {name} de cette discussion</translation>
        </message>
        <message>
            <source>Answers from:</source>
            <translation>Répond à partir de :</translation>
        </message>
        <message>
            <source>{error} The reply so far is kept.</source>
            <translation>{error} La partie déjà écrite de la réponse est conservée.</translation>
        </message>
        <message>
            <source>The reply to continue was deleted.</source>
            <translation>La réponse à poursuivre a été supprimée.</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Nouvelle discussion</translation>
        </message>
        <message>
            <source>The reply was deleted meanwhile; nothing was written.</source>
            <translation>La réponse a été supprimée entre-temps ; rien n’a été écrit.</translation>
        </message>
        <message>
            <source>The disk is full, so this reply is not saved yet. It stays on screen, and Cove saves it as soon as there is room: free some space on the disk.</source>
            <translation>Le disque est plein : cette réponse n’est pas encore enregistrée. Elle reste à l’écran, et Cove l’enregistre dès qu’il y a de la place : libérez de l’espace sur le disque.</translation>
        </message>
        <message>
            <source>unknown error</source>
            <translation>erreur inconnue</translation>
        </message>
        <message>
            <source>Could not save the reply: {reason}</source>
            <translation>Impossible d’enregistrer la réponse : {reason}</translation>
        </message>
        <message>
            <source>Chat settings</source>
            <translation>Réglages de la discussion</translation>
        </message>
        <message>
            <source>More for this chat</source>
            <translation>Plus d’options pour cette discussion</translation>
        </message>
        <message>
            <source>More actions</source>
            <translation>Plus d’actions</translation>
        </message>
        <message>
            <source>Find a vision model</source>
            <translation>Trouver un modèle de vision</translation>
        </message>
        <message>
            <source>Models › Discover, showing the models that see images</source>
            <translation>Modèles › Découvrir, avec les modèles qui voient les images</translation>
        </message>
        <message>
            <source>Undo</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Bring the deleted message back (Ctrl+Z)</source>
            <translation>Restaurer le message supprimé (Ctrl+Z)</translation>
        </message>
        <message>
            <source>Thinking</source>
            <translation>Réflexion</translation>
        </message>
        <message>
            <source>Let the model think before it answers, in a reasoning section</source>
            <translation>Laisser le modèle réfléchir avant de répondre, dans une section de raisonnement</translation>
        </message>
        <message>
            <source>Thinking: the model reasons before it answers. Off, it answers at once, without a reasoning section (this chat's replies from now on).</source>
            <translation>Réflexion : le modèle raisonne avant de répondre. Désactivée, il répond immédiatement, sans section de raisonnement (pour les prochaines réponses de cette discussion).</translation>
        </message>
        <message>
            <source>Reply deleted.</source>
            <translation>Réponse supprimée.</translation>
        </message>
        <message>
            <source>Message deleted.</source>
            <translation>Message supprimé.</translation>
        </message>
        <message>
            <source>Messages</source>
            <translation>Messages</translation>
        </message>
        <message>
            <source>Show earlier messages</source>
            <translation>Afficher les messages précédents</translation>
        </message>
        <message>
            <source>Replies are written on this computer; nothing you type leaves it.</source>
            <translation>Les réponses sont rédigées sur cet ordinateur ; rien de ce que vous tapez n’en sort.</translation>
        </message>
        <message>
            <source>Replies are written by the engine on {where}: what you send goes there. Your chat history stays on this computer.</source>
            <translation>Les réponses sont rédigées par le moteur sur {where} : ce que vous envoyez y est transmis. Votre historique des discussions reste sur cet ordinateur.</translation>
        </message>
        <message>
            <source>Ask anything.</source>
            <translation>Posez n’importe quelle question.</translation>
        </message>
        <message>
            <source>Show 1 earlier message</source>
            <translation>Afficher 1 message précédent</translation>
        </message>
        <message>
            <source>Show {n} earlier messages</source>
            <translation>Afficher {n} messages précédents</translation>
        </message>
        <message>
            <source>You</source>
            <translation>Vous</translation>
        </message>
        <message>
            <source>There is room on the disk again: the reply that was waiting is saved.</source>
            <translation>Il y a de nouveau de la place sur le disque : la réponse en attente est enregistrée.</translation>
        </message>
    </context>
    <context>
        <name>Chat header</name>
        <message>
            <source>JSON files (*.json)</source>
            <translation>Fichiers JSON (*.json)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Tous les fichiers (*)</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies (Ctrl+L)</source>
            <translation>Le modèle qui rédige les réponses de cette discussion (Ctrl+L)</translation>
        </message>
        <message>
            <source>Another computer's engine is in use: its model is chosen in Settings › Engine</source>
            <translation>Le moteur d’un autre ordinateur est utilisé : son modèle se choisit dans Réglages › Moteur</translation>
        </message>
        <message>
            <source>{action}: {reason}</source>
            <translation>{action}: {reason}</translation>
        </message>
        <message>
            <source>Save preset</source>
            <translation>Enregistrer le préréglage</translation>
        </message>
        <message>
            <source>Name of the preset:</source>
            <translation>Nom du préréglage :</translation>
        </message>
        <message>
            <source>The preset was not saved</source>
            <translation>Le préréglage n’a pas été enregistré</translation>
        </message>
        <message>
            <source>No default was set</source>
            <translation>Aucun préréglage par défaut n’a été défini</translation>
        </message>
        <message>
            <source>The preset was not deleted</source>
            <translation>Le préréglage n’a pas été supprimé</translation>
        </message>
        <message>
            <source>Import presets</source>
            <translation>Importer des préréglages</translation>
        </message>
        <message>
            <source>The presets were not imported</source>
            <translation>Les préréglages n’ont pas été importés</translation>
        </message>
        <message>
            <source>Export presets</source>
            <translation>Exporter les préréglages</translation>
        </message>
        <message>
            <source>The presets were not exported</source>
            <translation>Les préréglages n’ont pas été exportés</translation>
        </message>
    </context>
    <context>
        <name>Chat settings</name>
        <message>
            <source>Chat settings</source>
            <translation>Réglages de la discussion</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>System prompt</source>
            <translation>Prompt système</translation>
        </message>
        <message>
            <source>For example: You are a concise assistant.</source>
            <translation>Par exemple : Vous êtes un assistant concis.</translation>
        </message>
        <message>
            <source>0 always picks the likeliest word; higher is more varied.</source>
            <translation>0 choisit toujours le mot le plus probable ; une valeur plus élevée donne plus de variété.</translation>
        </message>
        <message>
            <source>0 turns top-k off.</source>
            <translation>0 désactive le top-k.</translation>
        </message>
        <message>
            <source>The longest reply, in tokens.</source>
            <translation>La longueur maximale d’une réponse, en jetons.</translation>
        </message>
        <message>
            <source>Automatic (largest that fits)</source>
            <translation>Automatique (le plus grand possible)</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} jetons</translation>
        </message>
        <message>
            <source>Applies when the model is loaded again.</source>
            <translation>S’applique au prochain chargement du modèle.</translation>
        </message>
        <message>
            <source>Temperature</source>
            <translation>Température</translation>
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
            <translation>Jetons max.</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Contexte</translation>
        </message>
        <message>
            <source>Defaults</source>
            <translation>Valeurs par défaut</translation>
        </message>
        <message>
            <source>Reload model</source>
            <translation>Recharger le modèle</translation>
        </message>
        <message>
            <source>Load the model again with this context size</source>
            <translation>Recharger le modèle avec cette taille de contexte</translation>
        </message>
        <message>
            <source>The model is loaded with a {n}-token context.</source>
            <translation>Le modèle est chargé avec un contexte de {n} jetons.</translation>
        </message>
    </context>
    <context>
        <name>ChatFiles</name>
        <message>
            <source>Waiting to be read…</source>
            <translation>En attente de lecture…</translation>
        </message>
        <message>
            <source>{n} pages</source>
            <translation>{n} pages</translation>
        </message>
        <message>
            <source>Read</source>
            <translation>Lu</translation>
        </message>
        <message>
            <source>Its pages are pictures of text: turn on OCR on the Documents page</source>
            <translation>Ses pages sont des images de texte : activez l’OCR dans la page Documents</translation>
        </message>
        <message>
            <source>could not be read</source>
            <translation>lecture impossible</translation>
        </message>
        <message>
            <source>Indexing {done} of {total} passages…</source>
            <translation>Indexation de {done} passages sur {total}…</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Lecture…</translation>
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
            <translation>Comparer la qualité</translation>
        </message>
        <message>
            <source>Both builds of {model} answer the same {n} everyday questions, and Cove counts how often each chooses the right answer. Each build is loaded in turn; on this computer it takes a few minutes.</source>
            <translation>Les deux versions de {model} répondent aux mêmes {n} questions de la vie courante, et Cove compte combien de fois chacune choisit la bonne réponse. Les versions sont chargées l’une après l’autre ; sur cet ordinateur, cela prend quelques minutes.</translation>
        </message>
        <message>
            <source>First build</source>
            <translation>Première version</translation>
        </message>
        <message>
            <source>Second build</source>
            <translation>Seconde version</translation>
        </message>
        <message>
            <source>Questions answered</source>
            <translation>Questions traitées</translation>
        </message>
        <message>
            <source>Build</source>
            <translation>Version</translation>
        </message>
        <message>
            <source>Right answers</source>
            <translation>Bonnes réponses</translation>
        </message>
        <message>
            <source>Time</source>
            <translation>Durée</translation>
        </message>
        <message>
            <source>Results</source>
            <translation>Résultats</translation>
        </message>
        <message>
            <source>How they ran</source>
            <translation>Comment elles ont tourné</translation>
        </message>
        <message>
            <source>Stop</source>
            <translation>Arrêter</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>Start comparing</source>
            <translation>Lancer la comparaison</translation>
        </message>
        <message>
            <source>Choose two different builds.</source>
            <translation>Choisissez deux versions différentes.</translation>
        </message>
        <message>
            <source>Stopping after the questions being answered…</source>
            <translation>Arrêt après les questions en cours…</translation>
        </message>
        <message>
            <source>Asking {build}…</source>
            <translation>Questions à {build}…</translation>
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
            <translation>Arrêté. « Lancer la comparaison » pose à nouveau toutes les questions.</translation>
        </message>
        <message>
            <source>The comparison stopped: {error}</source>
            <translation>La comparaison s’est arrêtée : {error}</translation>
        </message>
        <message>
            <source>The two builds chose the same answer to {same} % of the questions.</source>
            <translation>Les deux versions ont choisi la même réponse pour {same} % des questions.</translation>
        </message>
        <message>
            <source>No difference in quality on these questions: both got the same ones right.</source>
            <translation>Aucune différence de qualité sur ces questions : les deux ont réussi les mêmes.</translation>
        </message>
        <message>
            <source>No clear difference in quality on these questions: {points} points apart, within the margin of error (± {margin} points).</source>
            <translation>Pas de différence nette de qualité sur ces questions : {points} points d’écart, dans la marge d’erreur (± {margin} points).</translation>
        </message>
        <message>
            <source>{build} got {points} points fewer right (margin of error ± {margin} points): it loses quality on these questions.</source>
            <translation>{build} a obtenu {points} points de bonnes réponses en moins (marge d’erreur ± {margin} points) : elle perd en qualité sur ces questions.</translation>
        </message>
        <message>
            <source>{runtime} on {device}</source>
            <translation>{runtime} sur {device}</translation>
        </message>
        <message>
            <source>flash attention on</source>
            <translation>flash attention activée</translation>
        </message>
        <message>
            <source>flash attention off</source>
            <translation>flash attention désactivée</translation>
        </message>
        <message>
            <source>cache {type}</source>
            <translation>cache {type}</translation>
        </message>
        <message>
            <source>batches of {n} tokens</source>
            <translation>lots de {n} jetons</translation>
        </message>
        <message>
            <source>Both ran the same way: {way}.</source>
            <translation>Les deux ont tourné de la même façon : {way}.</translation>
        </message>
        <message>
            <source>The builds ran differently, and part of the difference may come from that: {first} ran {a}; {second} ran {b}.</source>
            <translation>Les versions n’ont pas tourné de la même façon, et une partie de l’écart peut en venir : {first} a tourné avec {a} ; {second} avec {b}.</translation>
        </message>
    </context>
    <context>
        <name>Data</name>
        <message>
            <source>daily</source>
            <translation>quotidienne</translation>
        </message>
        <message>
            <source>made by you</source>
            <translation>faite par vous</translation>
        </message>
        <message>
            <source>before an upgrade</source>
            <translation>avant une mise à niveau</translation>
        </message>
        <message>
            <source>before a restore</source>
            <translation>avant une restauration</translation>
        </message>
        <message>
            <source>before a repair</source>
            <translation>avant une réparation</translation>
        </message>
        <message>
            <source>before an import</source>
            <translation>avant une importation</translation>
        </message>
        <message>
            <source>Backups</source>
            <translation>Sauvegardes</translation>
        </message>
        <message>
            <source>Cove backs up your chats (with their images), presets and settings once a day, before every upgrade, and when you ask. The last 7 days and 4 weeks are kept.</source>
            <translation>Cove sauvegarde vos conversations (avec leurs images), préréglages et paramètres une fois par jour, avant chaque mise à niveau et quand vous le demandez. Les 7 derniers jours et les 4 dernières semaines sont conservés.</translation>
        </message>
        <message>
            <source>Back up now</source>
            <translation>Sauvegarder maintenant</translation>
        </message>
        <message>
            <source>Restore this backup…</source>
            <translation>Restaurer cette sauvegarde…</translation>
        </message>
        <message>
            <source>Check the history</source>
            <translation>Vérifier l’historique</translation>
        </message>
        <message>
            <source>Open the backups folder</source>
            <translation>Ouvrir le dossier des sauvegardes</translation>
        </message>
        <message>
            <source>Backup status</source>
            <translation>État de la sauvegarde</translation>
        </message>
        <message>
            <source>Moving to a new computer</source>
            <translation>Passer à un nouvel ordinateur</translation>
        </message>
        <message>
            <source>Export everything to one file: every chat with its versions and images, folders and pins, presets, settings, the MCP servers (without their keys) and your collections. Import it on the other computer: chats imported twice are not doubled.</source>
            <translation>Exportez tout dans un seul fichier : chaque conversation avec ses versions et ses images, les dossiers et épingles, les préréglages, les paramètres, les serveurs MCP (sans leurs clés) et vos collections. Importez-le sur l’autre ordinateur : une conversation importée deux fois n’est pas dupliquée.</translation>
        </message>
        <message>
            <source>Export everything…</source>
            <translation>Tout exporter…</translation>
        </message>
        <message>
            <source>Import…</source>
            <translation>Importer…</translation>
        </message>
        <message>
            <source>{when} · {reason} · {chats} chats · {size}</source>
            <translation>{when} · {reason} · {chats} conversations · {size}</translation>
        </message>
        <message>
            <source>{count} backups, {size} in all, in {folder}.</source>
            <translation>{count} sauvegardes, {size} au total, dans {folder}.</translation>
        </message>
        <message>
            <source>No backup yet: the first is made today.</source>
            <translation>Aucune sauvegarde pour l’instant : la première est faite aujourd’hui.</translation>
        </message>
        <message>
            <source>Backing up…</source>
            <translation>Sauvegarde en cours…</translation>
        </message>
        <message>
            <source>Backed up {chats} chats at {when}.</source>
            <translation>{chats} conversations sauvegardées à {when}.</translation>
        </message>
        <message>
            <source>Restore this backup?</source>
            <translation>Restaurer cette sauvegarde ?</translation>
        </message>
        <message>
            <source>The chat history goes back to how it was at {when} ({chats} chats). The history as it is now is backed up first, so this can be undone by restoring that backup.</source>
            <translation>L’historique revient à son état du {when} ({chats} conversations). L’historique actuel est d’abord sauvegardé : vous pourrez annuler en restaurant cette sauvegarde.</translation>
        </message>
        <message>
            <source>Restoring…</source>
            <translation>Restauration en cours…</translation>
        </message>
        <message>
            <source>Restored the backup of {when}.</source>
            <translation>La sauvegarde du {when} a été restaurée.</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>Vérification en cours…</translation>
        </message>
        <message>
            <source>The history file is damaged: {problems}. Restart Cove to repair it.</source>
            <translation>Le fichier de l’historique est endommagé : {problems}. Redémarrez Cove pour le réparer.</translation>
        </message>
        <message>
            <source>The chat history is whole.</source>
            <translation>L’historique des conversations est intact.</translation>
        </message>
        <message>
            <source>Export everything</source>
            <translation>Tout exporter</translation>
        </message>
        <message>
            <source>Cove archives (*.zip)</source>
            <translation>Archives Cove (*.zip)</translation>
        </message>
        <message>
            <source>Exporting…</source>
            <translation>Exportation en cours…</translation>
        </message>
        <message>
            <source>Exported {chats} chats to {path}.</source>
            <translation>{chats} conversations exportées vers {path}.</translation>
        </message>
        <message>
            <source>Import</source>
            <translation>Importer</translation>
        </message>
        <message>
            <source>Importing…</source>
            <translation>Importation en cours…</translation>
        </message>
        <message>
            <source>Imported {added} new chats and {merged} with new turns.</source>
            <translation>{added} nouvelles conversations importées et {merged} complétées de nouveaux échanges.</translation>
        </message>
    </context>
    <context>
        <name>Discover</name>
        <message>
            <source>fits on the {device}</source>
            <translation>tient sur {device}</translation>
        </message>
        <message>
            <source>tight</source>
            <translation>juste</translation>
        </message>
        <message>
            <source>too big</source>
            <translation>trop grand</translation>
        </message>
        <message>
            <source>{k}k context</source>
            <translation>contexte de {k}k</translation>
        </message>
        <message>
            <source>Vision: reads images</source>
            <translation>Vision : lit les images</translation>
        </message>
        <message>
            <source>some builds need a Hugging Face token</source>
            <translation>certaines variantes nécessitent un jeton Hugging Face</translation>
        </message>
        <message>
            <source>Vision</source>
            <translation>Vision</translation>
        </message>
        <message>
            <source>Reads images: its vision projector is downloaded with the model.</source>
            <translation>Lit les images : son projecteur de vision est téléchargé avec le modèle.</translation>
        </message>
        <message>
            <source>Download</source>
            <translation>Télécharger</translation>
        </message>
        <message>
            <source>Other builds</source>
            <translation>Autres variantes</translation>
        </message>
        <message>
            <source>Checking this computer…</source>
            <translation>Analyse de cet ordinateur…</translation>
        </message>
        <message>
            <source>about {tps} tokens/s here</source>
            <translation>environ {tps} jetons/s ici</translation>
        </message>
        <message>
            <source>Does not fit</source>
            <translation>Ne tient pas</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installé</translation>
        </message>
        <message>
            <source>Download {build} · {size}</source>
            <translation>Télécharger {build} · {size}</translation>
        </message>
        <message>
            <source>The {build} build: {size}</source>
            <translation>La variante {build} : {size}</translation>
        </message>
        <message>
            <source>{count} downloads</source>
            <translation>{count} téléchargements</translation>
        </message>
        <message>
            <source>gated: needs a Hugging Face token</source>
            <translation>accès restreint : nécessite un jeton Hugging Face</translation>
        </message>
        <message>
            <source>(root)</source>
            <translation>(racine)</translation>
        </message>
        <message>
            <source>· about {tps} tok/s</source>
            <translation>· environ {tps} jetons/s</translation>
        </message>
        <message>
            <source>Replies at about {early} tokens/s early in a conversation, {deep} deep into a long one; reads prompts at about {prompt} tokens/s.</source>
            <translation>Répond à environ {early} jetons/s en début de conversation, {deep} bien plus loin dans une longue conversation ; lit les prompts à environ {prompt} jetons/s.</translation>
        </message>
        <message>
            <source>Slower than the {tps} tokens/s you asked for.</source>
            <translation>Plus lent que les {tps} jetons/s demandés.</translation>
        </message>
        <message>
            <source>installed</source>
            <translation>installé</translation>
        </message>
        <message>
            <source>fits with a {n}-token context</source>
            <translation>tient avec un contexte de {n} jetons</translation>
        </message>
        <message>
            <source>too big for this computer</source>
            <translation>trop grand pour cet ordinateur</translation>
        </message>
        <message>
            <source>about {tps} tok/s</source>
            <translation>environ {tps} jetons/s</translation>
        </message>
        <message>
            <source>{size} (estimated)</source>
            <translation>{size} (estimation)</translation>
        </message>
    </context>
    <context>
        <name>Document answers</name>
        <message>
            <source>The collection {name} no longer exists. Choose another under Answer from.</source>
            <translation>La collection {name} n’existe plus. Choisissez-en une autre dans « Répondre à partir de ».</translation>
        </message>
    </context>
    <context>
        <name>Documents</name>
        <message>
            <source>Indexed</source>
            <translation>Indexé</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>En attente</translation>
        </message>
        <message>
            <source>Needs OCR</source>
            <translation>OCR nécessaire</translation>
        </message>
        <message>
            <source>Skipped</source>
            <translation>Ignoré</translation>
        </message>
        <message>
            <source>{n} indexed</source>
            <translation>{n} indexés</translation>
        </message>
        <message>
            <source>{n} waiting</source>
            <translation>{n} en attente</translation>
        </message>
        <message>
            <source>{n} needs ocr</source>
            <translation>{n} nécessitant l’OCR</translation>
        </message>
        <message>
            <source>{n} skipped</source>
            <translation>{n} ignorés</translation>
        </message>
        <message>
            <source>{n} cancelled</source>
            <translation>{n} annulés</translation>
        </message>
        <message>
            <source>{n} unchanged</source>
            <translation>{n} inchangés</translation>
        </message>
        <message>
            <source>{n} removed</source>
            <translation>{n} retirés</translation>
        </message>
        <message>
            <source>File</source>
            <translation>Fichier</translation>
        </message>
        <message>
            <source>State</source>
            <translation>État</translation>
        </message>
        <message>
            <source>Passages</source>
            <translation>Passages</translation>
        </message>
        <message>
            <source>Pages</source>
            <translation>Pages</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>Documents</translation>
        </message>
        <message>
            <source>New collection…</source>
            <translation>Nouvelle collection…</translation>
        </message>
        <message>
            <source>Collections</source>
            <translation>Collections</translation>
        </message>
        <message>
            <source>Add files…</source>
            <translation>Ajouter des fichiers…</translation>
        </message>
        <message>
            <source>Add folder…</source>
            <translation>Ajouter un dossier…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>Read scanned pages (OCR)</source>
            <translation>Lire les pages numérisées (OCR)</translation>
        </message>
        <message>
            <source>Read PDF pages that are pictures of text (scans) by OCR. Slower: seconds a page. Add the files again to read their scanned pages.</source>
            <translation>Lire par OCR les pages PDF qui sont des images de texte (numérisations). Plus lent : quelques secondes par page. Ajoutez à nouveau les fichiers pour lire leurs pages numérisées.</translation>
        </message>
        <message>
            <source>Needs Cove's OCR extra: {command}</source>
            <translation>Nécessite le module OCR optionnel de Cove : {command}</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Ask this collection… (Enter)</source>
            <translation>Interroger cette collection… (Enter)</translation>
        </message>
        <message>
            <source>Ask this collection</source>
            <translation>Interroger cette collection</translation>
        </message>
        <message>
            <source>The passages that answer it, with file and page.</source>
            <translation>Les passages qui y répondent, avec fichier et page.</translation>
        </message>
        <message>
            <source>1 folder</source>
            <translation>1 dossier</translation>
        </message>
        <message>
            <source>{n} folders</source>
            <translation>{n} dossiers</translation>
        </message>
        <message>
            <source>Watching {folders} · updating when this computer is idle</source>
            <translation>Surveillance de {folders} · mise à jour quand cet ordinateur est inactif</translation>
        </message>
        <message>
            <source>Watching {folders} · updating…</source>
            <translation>Surveillance de {folders} · mise à jour…</translation>
        </message>
        <message>
            <source>Watching {folders} · up to date</source>
            <translation>Surveillance de {folders} · à jour</translation>
        </message>
        <message>
            <source>Could not update {name}: {reason}</source>
            <translation>Impossible de mettre à jour {name} : {reason}</translation>
        </message>
        <message>
            <source>{state}: {reason}</source>
            <translation>{state}: {reason}</translation>
        </message>
        <message>
            <source>Make a collection, then add files or folders to it.</source>
            <translation>Créez une collection, puis ajoutez-y des fichiers ou des dossiers.</translation>
        </message>
        <message>
            <source>Add files or folders: PDF, Word, Markdown, HTML and text.</source>
            <translation>Ajoutez des fichiers ou des dossiers : PDF, Word, Markdown, HTML et texte.</translation>
        </message>
        <message>
            <source>Reading 1 item…</source>
            <translation>Lecture d’1 élément…</translation>
        </message>
        <message>
            <source>Reading {n} items…</source>
            <translation>Lecture de {n} éléments…</translation>
        </message>
        <message>
            <source>Stopping… what was read is kept; adding the same files resumes.</source>
            <translation>Arrêt… ce qui a été lu est conservé ; ajouter à nouveau les mêmes fichiers reprend la lecture.</translation>
        </message>
        <message>
            <source>Nothing to add.</source>
            <translation>Rien à ajouter.</translation>
        </message>
        <message>
            <source>Reading {at} of {total}: {name} ({rate} pages a second)</source>
            <translation>Lecture {at} sur {total} : {name} ({rate} pages par seconde)</translation>
        </message>
        <message>
            <source>Reading {at} of {total}: {name}</source>
            <translation>Lecture {at} sur {total} : {name}</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages ({rate} a second), about {eta} s left</source>
            <translation>Indexation du sens : {done} passages sur {total} ({rate} par seconde), environ {eta} s restantes</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages ({rate} a second)</source>
            <translation>Indexation du sens : {done} passages sur {total} ({rate} par seconde)</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages, about {eta} s left</source>
            <translation>Indexation du sens : {done} passages sur {total}, environ {eta} s restantes</translation>
        </message>
        <message>
            <source>Indexing meaning: {done} of {total} passages</source>
            <translation>Indexation du sens : {done} passages sur {total}</translation>
        </message>
        <message>
            <source>The collection is still being indexed: these are from what is read so far.</source>
            <translation>La collection est encore en cours d’indexation : ces résultats proviennent de ce qui a déjà été lu.</translation>
        </message>
        <message>
            <source>Searching by keywords only: no embedding model yet (get {model} under Models to search by meaning).</source>
            <translation>Recherche par mots-clés uniquement : aucun modèle d’embeddings pour l’instant (téléchargez {model} dans Modèles pour rechercher par le sens).</translation>
        </message>
        <message>
            <source>Nothing in this collection matches.</source>
            <translation>Rien dans cette collection ne correspond.</translation>
        </message>
        <message>
            <source>{file}, page {page}</source>
            <translation>{file}, page {page}</translation>
        </message>
        <message>
            <source>New collection</source>
            <translation>Nouvelle collection</translation>
        </message>
        <message>
            <source>Name:</source>
            <translation>Nom :</translation>
        </message>
        <message>
            <source>Add files</source>
            <translation>Ajouter des fichiers</translation>
        </message>
        <message>
            <source>Documents ({patterns})</source>
            <translation>Documents ({patterns})</translation>
        </message>
        <message>
            <source>All files ({patterns})</source>
            <translation>Tous les fichiers ({patterns})</translation>
        </message>
        <message>
            <source>Add a folder</source>
            <translation>Ajouter un dossier</translation>
        </message>
    </context>
    <context>
        <name>Downloads</name>
        <message>
            <source>Give a repository as owner/repo (Cove chooses the file that suits this computer), or one file as owner/repo/FILE, for example {example}.</source>
            <translation>Indiquez un dépôt sous la forme propriétaire/dépôt (Cove choisit le fichier adapté à cet ordinateur) ou un fichier sous la forme propriétaire/dépôt/FICHIER, par exemple {example}.</translation>
        </message>
        <message>
            <source>{repo} has no model file Cove can choose: it holds no single-file GGUF model. Name one of its files as owner/repo/FILE, or look for the model on Discover.</source>
            <translation>{repo} n’a aucun fichier de modèle que Cove puisse choisir : il ne contient aucun modèle GGUF en un seul fichier. Indiquez l’un de ses fichiers sous la forme owner/repo/FILE, ou cherchez le modèle dans Découvrir.</translation>
        </message>
        <message>
            <source>No model file of {repo} fits in the memory free here: the smallest, {file}, is {size}. Close other programs, or choose a smaller model.</source>
            <translation>Aucun fichier de modèle de {repo} ne tient dans la mémoire libre ici : le plus petit, {file}, fait {size}. Fermez d’autres programmes ou choisissez un modèle plus petit.</translation>
        </message>
        <message>
            <source>{name} is already in the downloads.</source>
            <translation>{name} figure déjà dans les téléchargements.</translation>
        </message>
        <message>
            <source>Waiting</source>
            <translation>En attente</translation>
        </message>
        <message>
            <source>Asking the hub</source>
            <translation>Interrogation du hub</translation>
        </message>
        <message>
            <source>Downloading</source>
            <translation>Téléchargement</translation>
        </message>
        <message>
            <source>Checking the file</source>
            <translation>Vérification du fichier</translation>
        </message>
        <message>
            <source>Fetching damaged parts again</source>
            <translation>Nouveau téléchargement des parties endommagées</translation>
        </message>
        <message>
            <source>Installing</source>
            <translation>Installation</translation>
        </message>
        <message>
            <source>Paused</source>
            <translation>En pause</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installé</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Échec</translation>
        </message>
        <message>
            <source>Cancelled</source>
            <translation>Annulé</translation>
        </message>
        <message>
            <source>{s} s left</source>
            <translation>{s} s restantes</translation>
        </message>
        <message>
            <source>{min} min left</source>
            <translation>{min} min restantes</translation>
        </message>
        <message>
            <source>{h} h {min} min left</source>
            <translation>{h} h {min} min restantes</translation>
        </message>
        <message>
            <source>{done} of {total}</source>
            <translation>{done} sur {total}</translation>
        </message>
        <message>
            <source>with its vision projector</source>
            <translation>avec son projecteur de vision</translation>
        </message>
        <message>
            <source>Reads images with {projector}, downloaded with it.</source>
            <translation>Lit les images avec {projector}, téléchargé en même temps.</translation>
        </message>
        <message>
            <source>Pause</source>
            <translation>Suspendre</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Reprendre</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Choose a file for me</source>
            <translation>Choisir un fichier pour moi</translation>
        </message>
        <message>
            <source>Downloads the file of {repo} that suits this computer: its 4-bit, medium quality build, else the largest that fits in the memory free here.</source>
            <translation>Télécharge le fichier de {repo} adapté à cet ordinateur : sa variante 4 bits de qualité moyenne, sinon la plus grande qui tient dans la mémoire libre ici.</translation>
        </message>
        <message>
            <source>Download without image reading</source>
            <translation>Télécharger sans la lecture d’images</translation>
        </message>
        <message>
            <source>Downloads {file} alone: the model reads text, not images.</source>
            <translation>Télécharge {file} seul : le modèle lit le texte, pas les images.</translation>
        </message>
        <message>
            <source>Chat with it</source>
            <translation>Discuter avec ce modèle</translation>
        </message>
        <message>
            <source>Try again</source>
            <translation>Réessayer</translation>
        </message>
        <message>
            <source>owner/repo or owner/repo/FILE.gguf, as on the Hugging Face Hub</source>
            <translation>propriétaire/dépôt ou propriétaire/dépôt/FICHIER.gguf, comme sur le Hugging Face Hub</translation>
        </message>
        <message>
            <source>Model to download</source>
            <translation>Modèle à télécharger</translation>
        </message>
        <message>
            <source>Add download</source>
            <translation>Ajouter le téléchargement</translation>
        </message>
        <message>
            <source>No downloads yet. Downloads go on while you chat, and a paused or interrupted one resumes where it stopped.</source>
            <translation>Aucun téléchargement pour l’instant. Les téléchargements se poursuivent pendant que vous discutez, et un téléchargement suspendu ou interrompu reprend là où il s’était arrêté.</translation>
        </message>
        <message>
            <source>Choosing the file of {repo} that suits this computer…</source>
            <translation>Choix du fichier de {repo} adapté à cet ordinateur…</translation>
        </message>
        <message>
            <source>No file of {repo} was chosen: {why}</source>
            <translation>Aucun fichier de {repo} n’a été choisi : {why}</translation>
        </message>
    </context>
    <context>
        <name>Engine</name>
        <message>
            <source>The engine could not start. {reason}</source>
            <translation>Le moteur n’a pas pu démarrer. {reason}</translation>
        </message>
        <message>
            <source>The engine at {where} has no chat model. Load one on that computer, then connect again.</source>
            <translation>Le moteur sur {where} n’a aucun modèle de discussion. Chargez-en un sur cet autre ordinateur, puis reconnectez-vous.</translation>
        </message>
        <message>
            <source>Could not connect to the engine at {url}. {reason}</source>
            <translation>Impossible de se connecter au moteur à l’adresse {url}. {reason}</translation>
        </message>
        <message>
            <source>The engine is not running; restart it first.</source>
            <translation>Le moteur n’est pas en cours d’exécution ; redémarrez-le d’abord.</translation>
        </message>
        <message>
            <source>Could not unload {model}: {reason}</source>
            <translation>Impossible de décharger {model} : {reason}</translation>
        </message>
        <message>
            <source>{note} Choose one of its models, or use this computer's engine (Settings › Engine) to load this one.</source>
            <translation>{note} Choisissez l’un de ses modèles, ou utilisez le moteur de cet ordinateur (Réglages › Moteur) pour charger celui-ci.</translation>
        </message>
        <message>
            <source>The engine is not running.</source>
            <translation>Le moteur n’est pas en cours d’exécution.</translation>
        </message>
        <message>
            <source>The engine is not running. Use Restart engine, then send the message again.</source>
            <translation>Le moteur n’est pas en cours d’exécution. Utilisez « Redémarrer le moteur », puis renvoyez le message.</translation>
        </message>
        <message>
            <source>The engine stopped unexpectedly. Restart it to continue.</source>
            <translation>Le moteur s’est arrêté de manière inattendue. Redémarrez-le pour continuer.</translation>
        </message>
        <message>
            <source>The engine could not be restarted: {reason}</source>
            <translation>Le moteur n’a pas pu être redémarré : {reason}</translation>
        </message>
    </context>
    <context>
        <name>Engine settings</name>
        <message>
            <source>Cove's own engine runs your models on this computer: it loads them, checks that they fit in memory, and keeps each conversation's state.</source>
            <translation>Le moteur de Cove exécute vos modèles sur cet ordinateur : il les charge, vérifie qu’ils tiennent en mémoire et conserve l’état de chaque conversation.</translation>
        </message>
        <message>
            <source>Another Cove on your network (in Cove's window there, Settings › Engine › "Let other computers on this network use this engine": it shows an address, a key and a fingerprint), or any OpenAI-compatible server: LM Studio (http://HOST:1234/v1), llama-server, vLLM, Ollama (http://HOST:11434/v1). Your conversations and documents stay here; each message and the passages it cites are sent to that computer.</source>
            <translation>Un autre Cove de votre réseau (dans sa fenêtre, Réglages › Moteur › « Permettre aux autres ordinateurs de ce réseau d’utiliser ce moteur » : il affiche une adresse, une clé et une empreinte), ou tout serveur compatible OpenAI : LM Studio (http://HOST:1234/v1), llama-server, vLLM, Ollama (http://HOST:11434/v1). Vos conversations et documents restent ici ; chaque message et les passages qu’il cite sont envoyés à cet ordinateur.</translation>
        </message>
        <message>
            <source>Kept in this computer's keyring (or a file only you can read).</source>
            <translation>Conservée dans le trousseau de cet ordinateur (ou dans un fichier que vous seul pouvez lire).</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>Moteur</translation>
        </message>
        <message>
            <source>Where your models run</source>
            <translation>Où vos modèles s’exécutent</translation>
        </message>
        <message>
            <source>This computer</source>
            <translation>Cet ordinateur</translation>
        </message>
        <message>
            <source>Another computer</source>
            <translation>Un autre ordinateur</translation>
        </message>
        <message>
            <source>Address of the other computer's engine</source>
            <translation>Adresse du moteur de l’autre ordinateur</translation>
        </message>
        <message>
            <source>Key</source>
            <translation>Clé</translation>
        </message>
        <message>
            <source>the key that computer gave (none if the server needs none)</source>
            <translation>la clé donnée par cet ordinateur (aucune si le serveur n’en demande pas)</translation>
        </message>
        <message>
            <source>Find on this network</source>
            <translation>Chercher sur ce réseau</translation>
        </message>
        <message>
            <source>Cove engines that let this network use them and announce themselves: their name and certificate fingerprint. Finding one does not trust it.</source>
            <translation>Les moteurs Cove qui se laissent utiliser par ce réseau et s’annoncent : leur nom et l’empreinte de leur certificat. En trouver un ne revient pas à lui faire confiance.</translation>
        </message>
        <message>
            <source>Address</source>
            <translation>Adresse</translation>
        </message>
        <message>
            <source>Certificate fingerprint (SHA-256)</source>
            <translation>Empreinte du certificat (SHA-256)</translation>
        </message>
        <message>
            <source>Trust the new certificate…</source>
            <translation>Faire confiance au nouveau certificat…</translation>
        </message>
        <message>
            <source>Sharing this computer's engine</source>
            <translation>Partager le moteur de cet ordinateur</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>Connect</source>
            <translation>Se connecter</translation>
        </message>
        <message>
            <source>Enter the other computer's address, like {example}</source>
            <translation>Saisissez l’adresse de l’autre ordinateur, par exemple {example}</translation>
        </message>
        <message>
            <source>Looking…</source>
            <translation>Recherche…</translation>
        </message>
        <message>
            <source>Could not look on the network: {error}</source>
            <translation>Impossible de chercher sur le réseau : {error}</translation>
        </message>
        <message>
            <source>No Cove announced itself on this network. On the other computer, open Cove's Settings › Engine and tick "Let other computers on this network use this engine"; or type its address. On a computer without a screen, run {command} there.</source>
            <translation>Aucun Cove ne s’est annoncé sur ce réseau. Sur l’autre ordinateur, ouvrez Réglages › Moteur dans Cove et cochez « Permettre aux autres ordinateurs de ce réseau d’utiliser ce moteur » ; ou saisissez son adresse. Sur un ordinateur sans écran, exécutez-y {command}.</translation>
        </message>
        <message>
            <source>Connecting to {where}…</source>
            <translation>Connexion à {where}…</translation>
        </message>
        <message>
            <source>Use this computer</source>
            <translation>Utiliser cet ordinateur</translation>
        </message>
        <message>
            <source>Connected to {where}</source>
            <translation>Connecté à {where}</translation>
        </message>
        <message>
            <source>1 model there</source>
            <translation>1 modèle là-bas</translation>
        </message>
        <message>
            <source>{n} models there</source>
            <translation>{n} modèles là-bas</translation>
        </message>
        <message>
            <source>Chats use {model} ({count}). {note}</source>
            <translation>Les discussions utilisent {model} ({count}). {note}</translation>
        </message>
        <message>
            <source>First connection: Cove pinned this certificate. Check that it is the fingerprint that Cove shows on {where} (Settings › Engine); if it is not, choose This computer and tell whoever runs that computer.</source>
            <translation>Première connexion : Cove a épinglé ce certificat. Vérifiez que c’est bien l’empreinte que Cove affiche sur {where} (Réglages › Moteur) ; sinon, choisissez Cet ordinateur et prévenez la personne qui gère cet ordinateur.</translation>
        </message>
        <message>
            <source>Pinned at the first connection: a different certificate would be refused.</source>
            <translation>Épinglé à la première connexion : un autre certificat serait refusé.</translation>
        </message>
        <message>
            <source>Models run on this computer</source>
            <translation>Les modèles s’exécutent sur cet ordinateur</translation>
        </message>
        <message>
            <source>&lt;b&gt;The certificate of {where} has changed.&lt;/b&gt; It is not the one Cove pinned when it first connected. Someone on the network may be impersonating that computer, so Cove did not connect.&lt;br&gt;If that computer's Cove made a new certificate (it was reinstalled, or its data folder replaced), compare the fingerprint it shows now with the new one below before trusting it.</source>
            <translation>&lt;b&gt;Le certificat de {where} a changé.&lt;/b&gt; Ce n’est pas celui que Cove a épinglé à la première connexion. Quelqu’un sur le réseau se fait peut-être passer pour cet ordinateur : Cove ne s’est donc pas connecté.&lt;br&gt;Si le Cove de cet ordinateur a créé un nouveau certificat (il a été réinstallé, ou son dossier de données remplacé), comparez l’empreinte qu’il affiche maintenant avec la nouvelle ci-dessous avant de lui faire confiance.</translation>
        </message>
        <message>
            <source>It now shows:</source>
            <translation>Il affiche maintenant :</translation>
        </message>
        <message>
            <source>Trust the new certificate of {where}?

Do this only if the Cove on that computer shows this same fingerprint (its Settings › Engine):

{fingerprint}

If you cannot check, choose No: Cove stays disconnected from it.</source>
            <translation>Faire confiance au nouveau certificat de {where} ?

Ne le faites que si le Cove de cet ordinateur affiche exactement cette empreinte (dans ses Réglages › Moteur) :

{fingerprint}

Si vous ne pouvez pas vérifier, choisissez Non : Cove reste déconnecté.</translation>
        </message>
        <message>
            <source>Trust the new certificate?</source>
            <translation>Faire confiance au nouveau certificat ?</translation>
        </message>
        <message>
            <source>Starting the engine…</source>
            <translation>Démarrage du moteur…</translation>
        </message>
        <message>
            <source>First connection to {where}: its certificate {fingerprint}… is pinned. Check the whole fingerprint (Settings › Engine) against that computer's.</source>
            <translation>Première connexion à {where} : son certificat {fingerprint}… est épinglé. Comparez l’empreinte complète (Réglages › Moteur) avec celle de cet ordinateur.</translation>
        </message>
        <message>
            <source>On {where}</source>
            <translation>Sur {where}</translation>
        </message>
        <message>
            <source>Sharing stopped: {reason}</source>
            <translation>Partage arrêté : {reason}</translation>
        </message>
        <message>
            <source>Sharing stopped unexpectedly. Tick the box above to share this engine again.</source>
            <translation>Le partage s’est arrêté de façon inattendue. Cochez la case ci-dessus pour partager de nouveau ce moteur.</translation>
        </message>
        <message>
            <source>Sharing could not start: {reason}</source>
            <translation>Le partage n’a pas pu démarrer : {reason}</translation>
        </message>
        <message>
            <source>● in use</source>
            <translation>● utilisé</translation>
        </message>
        <message>
            <source>Use in the chat</source>
            <translation>Utiliser dans la discussion</translation>
        </message>
        <message>
            <source>{note} These are the models it serves; the one you choose answers your chats. To load another there, do it on that computer; to use the models listed under Installed, choose This computer in Settings › Engine.</source>
            <translation>{note} Voici les modèles qu’il propose ; celui que vous choisissez répond à vos discussions. Pour en charger un autre là-bas, faites-le sur cet ordinateur ; pour utiliser les modèles listés sous Installés, choisissez Cet ordinateur dans Réglages › Moteur.</translation>
        </message>
        <message>
            <source>Let other computers on this network use this engine</source>
            <translation>Permettre aux autres ordinateurs de ce réseau d’utiliser ce moteur</translation>
        </message>
        <message>
            <source>Port</source>
            <translation>Port</translation>
        </message>
        <message>
            <source>Web pages allowed</source>
            <translation>Pages web autorisées</translation>
        </message>
        <message>
            <source>Web pages and browser extensions from elsewhere that may use this engine, with the key (* stands for any text; separate them with commas). Pages served by this computer and desktop apps such as Obsidian are allowed already; any other page is refused.</source>
            <translation>Pages web et extensions de navigateur d’ailleurs qui peuvent utiliser ce moteur, avec la clé (* remplace n’importe quel texte ; séparez-les par des virgules). Les pages servies par cet ordinateur et les applications de bureau comme Obsidian sont déjà autorisées ; toute autre page est refusée.</translation>
        </message>
        <message>
            <source>Make a new key</source>
            <translation>Créer une nouvelle clé</translation>
        </message>
        <message>
            <source>The old key stops working</source>
            <translation>L’ancienne clé ne fonctionne plus</translation>
        </message>
        <message>
            <source>Fingerprint</source>
            <translation>Empreinte</translation>
        </message>
        <message>
            <source>Only this computer's engine can be shared: choose This computer first.</source>
            <translation>Seul le moteur de cet ordinateur peut être partagé : choisissez d’abord Cet ordinateur.</translation>
        </message>
        <message>
            <source>Serves {model} to this network from an engine of its own (the model loads a second time), until Cove closes. Others connect with the address and the key, and check the fingerprint their Cove shows.</source>
            <translation>Propose {model} à ce réseau depuis un moteur à part (le modèle est chargé une seconde fois), jusqu’à la fermeture de Cove. Les autres se connectent avec l’adresse et la clé, et vérifient l’empreinte qu’affiche leur Cove.</translation>
        </message>
        <message>
            <source>the model in use</source>
            <translation>le modèle utilisé</translation>
        </message>
        <message>
            <source>Serving at {address}</source>
            <translation>Disponible à {address}</translation>
        </message>
        <message>
            <source>Starting…</source>
            <translation>Démarrage…</translation>
        </message>
        <message>
            <source>Shown only now: give it to the people who may use this engine. Cove keeps only a digest of it.</source>
            <translation>Affichée une seule fois : donnez-la aux personnes autorisées à utiliser ce moteur. Cove n’en garde qu’une empreinte.</translation>
        </message>
        <message>
            <source>made earlier</source>
            <translation>créée auparavant</translation>
        </message>
        <message>
            <source>Only a digest of the key is kept, so it cannot be shown again. Make a new one to give out (the old one stops working).</source>
            <translation>Seule une empreinte de la clé est conservée : elle ne peut donc plus être affichée. Créez-en une nouvelle à donner (l’ancienne cessera de fonctionner).</translation>
        </message>
    </context>
    <context>
        <name>Find in chat</name>
        <message>
            <source>Find in this chat</source>
            <translation>Rechercher dans cette discussion</translation>
        </message>
        <message>
            <source>Find in chat</source>
            <translation>Rechercher dans la discussion</translation>
        </message>
        <message>
            <source>Previous match</source>
            <translation>Résultat précédent</translation>
        </message>
        <message>
            <source>Next match</source>
            <translation>Résultat suivant</translation>
        </message>
        <message>
            <source>Close find</source>
            <translation>Fermer la recherche</translation>
        </message>
        <message>
            <source>No matches</source>
            <translation>Aucun résultat</translation>
        </message>
        <message>
            <source>{at} of {total}</source>
            <translation>{at} sur {total}</translation>
        </message>
    </context>
    <context>
        <name>Hardware</name>
        <message>
            <source>this computer and others on the network</source>
            <translation>cet ordinateur et d’autres sur le réseau</translation>
        </message>
        <message>
            <source>the processor</source>
            <translation>le processeur</translation>
        </message>
        <message>
            <source>the graphics card ({name})</source>
            <translation>la carte graphique ({name})</translation>
        </message>
        <message>
            <source>the Neural Engine</source>
            <translation>le Neural Engine</translation>
        </message>
        <message>
            <source>the AI accelerator</source>
            <translation>l’accélérateur d’IA</translation>
        </message>
        <message>
            <source>the graphics card</source>
            <translation>la carte graphique</translation>
        </message>
        <message>
            <source>the processor (1 core)</source>
            <translation>le processeur (1 cœur)</translation>
        </message>
        <message>
            <source>the processor ({cores} cores)</source>
            <translation>le processeur ({cores} cœurs)</translation>
        </message>
        <message>
            <source>exit code {code}</source>
            <translation>code de sortie {code}</translation>
        </message>
        <message>
            <source>Guessed tokens are checked in batches wherever that pays. This build computes a batch exactly as single tokens for the first {count} tokens of a conversation; past them a batch may round differently, as replies batched together do (speculation "exact" keeps to them).</source>
            <translation>Les jetons devinés sont vérifiés par lots chaque fois que c’est avantageux. Cette version calcule un lot exactement comme des jetons isolés pour les {count} premiers jetons d’une conversation ; au-delà, un lot peut être arrondi différemment, comme les réponses traitées ensemble par lots (la spéculation « exact » s’en tient à ces premiers jetons).</translation>
        </message>
        <message>
            <source>Guessed tokens are checked in batches wherever that pays. This build computes a batch slightly differently from single tokens, which may change a near-tie (speculation "exact" turns it off here).</source>
            <translation>Les jetons devinés sont vérifiés par lots chaque fois que c’est avantageux. Cette version calcule un lot légèrement différemment des jetons isolés, ce qui peut changer l’issue d’une quasi-égalité (la spéculation « exact » la désactive ici).</translation>
        </message>
        <message>
            <source>{draft} drafts for it.</source>
            <translation>{draft} lui fournit des ébauches.</translation>
        </message>
        <message>
            <source>No draft model is in use.</source>
            <translation>Aucun modèle d’ébauche n’est utilisé.</translation>
        </message>
        <message>
            <source>Speculative decoding: {guesses} {draft}</source>
            <translation>Décodage spéculatif : {guesses} {draft}</translation>
        </message>
        <message>
            <source>Background measuring is off: models run the way the planner chose.</source>
            <translation>La mesure en arrière-plan est désactivée : les modèles s’exécutent comme le planificateur l’a choisi.</translation>
        </message>
        <message>
            <source>Nothing is waiting to be measured.</source>
            <translation>Rien n’est en attente de mesure.</translation>
        </message>
        <message>
            <source>&lt;b&gt;{model}&lt;/b&gt; runs on &lt;b&gt;{device}&lt;/b&gt;, with a context of {n} tokens.</source>
            <translation>&lt;b&gt;{model}&lt;/b&gt; s’exécute sur &lt;b&gt;{device}&lt;/b&gt;, avec un contexte de {n} jetons.</translation>
        </message>
        <message>
            <source>{n} threads</source>
            <translation>{n} threads</translation>
        </message>
        <message>
            <source>Why: {verdict}.</source>
            <translation>Raison : {verdict}.</translation>
        </message>
        <message>
            <source>Models run best here on &lt;b&gt;{device}&lt;/b&gt;.</source>
            <translation>Ici, les modèles fonctionnent le mieux sur &lt;b&gt;{device}&lt;/b&gt;.</translation>
        </message>
        <message>
            <source>System</source>
            <translation>Système</translation>
        </message>
        <message>
            <source>Processor</source>
            <translation>Processeur</translation>
        </message>
        <message>
            <source>{cores} cores, {threads} threads at once</source>
            <translation>{cores} cœurs, {threads} threads simultanés</translation>
        </message>
        <message>
            <source>Cores</source>
            <translation>Cœurs</translation>
        </message>
        <message>
            <source>none detected</source>
            <translation>aucun détecté</translation>
        </message>
        <message>
            <source>{total} total, {free} available</source>
            <translation>{total} au total, {free} disponibles</translation>
        </message>
        <message>
            <source>Memory</source>
            <translation>Mémoire</translation>
        </message>
        <message>
            <source>{total} shared with the processor, about {usable} usable</source>
            <translation>{total} partagés avec le processeur, environ {usable} utilisables</translation>
        </message>
        <message>
            <source>{free} free of {total}</source>
            <translation>{free} libres sur {total}</translation>
        </message>
        <message>
            <source>Graphics card {n}</source>
            <translation>Carte graphique {n}</translation>
        </message>
        <message>
            <source>Graphics card</source>
            <translation>Carte graphique</translation>
        </message>
        <message>
            <source>AI accelerator</source>
            <translation>Accélérateur d’IA</translation>
        </message>
        <message>
            <source>uses the graphics card</source>
            <translation>utilise la carte graphique</translation>
        </message>
        <message>
            <source>uses the processor</source>
            <translation>utilise le processeur</translation>
        </message>
        <message>
            <source>unknown</source>
            <translation>inconnu</translation>
        </message>
        <message>
            <source>devices: {devices}</source>
            <translation>périphériques : {devices}</translation>
        </message>
        <message>
            <source>unavailable: {reason}</source>
            <translation>indisponible : {reason}</translation>
        </message>
        <message>
            <source>Not found</source>
            <translation>Introuvable</translation>
        </message>
        <message>
            <source>No model has been measured here yet. A model that can run more than one way (flash attention on or off, graphics card or processor, its GGUF or ONNX build) is measured after it is first loaded, once this computer is idle.</source>
            <translation>Aucun modèle n’a encore été mesuré ici. Un modèle qui peut s’exécuter de plusieurs façons (flash attention activée ou non, carte graphique ou processeur, variante GGUF ou ONNX) est mesuré après son premier chargement, dès que cet ordinateur est inactif.</translation>
        </message>
        <message>
            <source>Measured</source>
            <translation>Mesuré</translation>
        </message>
        <message>
            <source>Measured (a turn at a {n}-token context)</source>
            <translation>Mesuré (un tour avec un contexte de {n} jetons)</translation>
        </message>
        <message>
            <source>(your choice)</source>
            <translation>(votre choix)</translation>
        </message>
        <message>
            <source>(fastest)</source>
            <translation>(le plus rapide)</translation>
        </message>
        <message>
            <source>prompt {prompt} tokens/s, replies {start} tokens/s at the start, {half} halfway; a turn {turn} s ({low}–{high} s over {runs} runs)</source>
            <translation>prompt {prompt} jetons/s, réponses {start} jetons/s au début, {half} à mi-parcours ; un tour {turn} s ({low}–{high} s sur {runs} exécutions)</translation>
        </message>
        <message>
            <source>Measured while other programs kept the processor busy: measured again later, when this computer is idle.</source>
            <translation>Mesuré alors que d’autres programmes occupaient le processeur : sera mesuré à nouveau plus tard, quand cet ordinateur sera inactif.</translation>
        </message>
        <message>
            <source>Use this way</source>
            <translation>Utiliser ce mode</translation>
        </message>
        <message>
            <source>Go back to the fastest way</source>
            <translation>Revenir au mode le plus rapide</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>Matériel</translation>
        </message>
        <message>
            <source>Check again</source>
            <translation>Vérifier à nouveau</translation>
        </message>
        <message>
            <source>Measure in the background when this computer is idle</source>
            <translation>Mesurer en arrière-plan quand cet ordinateur est inactif</translation>
        </message>
        <message>
            <source>Cove measures the fastest way to run a model on this computer only while nothing else is using the processor, and stops at once when another program needs it.</source>
            <translation>Cove mesure la façon la plus rapide d’exécuter un modèle sur cet ordinateur uniquement lorsque rien d’autre n’utilise le processeur, et s’arrête immédiatement dès qu’un autre programme en a besoin.</translation>
        </message>
        <message>
            <source>Could not change the setting: {error}</source>
            <translation>Impossible de modifier le réglage : {error}</translation>
        </message>
        <message>
            <source>Cove could not look at this computer's hardware. Models still run, on the processor; Check again tries once more.</source>
            <translation>Cove n’a pas pu examiner le matériel de cet ordinateur. Les modèles fonctionnent quand même, sur le processeur ; « Vérifier à nouveau » relance l’examen.</translation>
        </message>
        <message>
            <source>Looking…</source>
            <translation>Analyse…</translation>
        </message>
    </context>
    <context>
        <name>History</name>
        <message>
            <source>the backup of {when}</source>
            <translation>la sauvegarde du {when}</translation>
        </message>
        <message>
            <source>no backup (there was none yet)</source>
            <translation>aucune sauvegarde (il n’y en avait pas encore)</translation>
        </message>
        <message>
            <source>Chat history repaired</source>
            <translation>Historique réparé</translation>
        </message>
        <message>
            <source>Your chat history was repaired</source>
            <translation>Votre historique de conversations a été réparé</translation>
        </message>
        <message>
            <source>Cove found the chat history damaged ({problem}) and rebuilt it from {source} and everything the damaged file still held: {chats} chats are here. The damaged file is kept, unchanged, in {folder}.</source>
            <translation>Cove a trouvé l’historique endommagé ({problem}) et l’a reconstruit à partir de {source} et de tout ce que le fichier endommagé contenait encore : {chats} conversations sont là. Le fichier endommagé est conservé, intact, dans {folder}.</translation>
        </message>
        <message>
            <source>it held fewer messages than before: its journal was lost, or an older copy replaced it</source>
            <translation>il contenait moins de messages qu’avant : son journal a été perdu, ou une copie plus ancienne l’a remplacé</translation>
        </message>
        <message>
            <source>the file is no longer a database: something wrote over it</source>
            <translation>le fichier n’est plus une base de données : quelque chose l’a écrasé</translation>
        </message>
        <message>
            <source>part of the file could not be read</source>
            <translation>une partie du fichier n’a pas pu être lue</translation>
        </message>
        <message>
            <source>Show the damaged file</source>
            <translation>Afficher le fichier endommagé</translation>
        </message>
        <message>
            <source>Dismiss</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>L’historique est encore en cours d’ouverture ; réessayez dans un instant.</translation>
        </message>
    </context>
    <context>
        <name>Hugging Face settings</name>
        <message>
            <source>Hugging Face settings</source>
            <translation>Réglages Hugging Face</translation>
        </message>
        <message>
            <source>hf_… (only for gated or private models)</source>
            <translation>hf_… (uniquement pour les modèles privés ou à accès restreint)</translation>
        </message>
        <message>
            <source>the system's certificates</source>
            <translation>les certificats du système</translation>
        </message>
        <message>
            <source>Choose…</source>
            <translation>Choisir…</translation>
        </message>
        <message>
            <source>Access token</source>
            <translation>Jeton d’accès</translation>
        </message>
        <message>
            <source>Hub address</source>
            <translation>Adresse du hub</translation>
        </message>
        <message>
            <source>CA bundle</source>
            <translation>Certificats CA</translation>
        </message>
        <message>
            <source>HF_TOKEN is set in the environment and is used instead of this token.</source>
            <translation>HF_TOKEN est défini dans l’environnement et est utilisé à la place de ce jeton.</translation>
        </message>
        <message>
            <source>HF_ENDPOINT is set in the environment and wins over this address.</source>
            <translation>HF_ENDPOINT est défini dans l’environnement et prévaut sur cette adresse.</translation>
        </message>
        <message>
            <source>The token is kept in Cove's data folder, readable by you alone, and sent only to the hub's own address.</source>
            <translation>Le jeton est conservé dans le dossier de données de Cove, lisible par vous seul, et n’est envoyé qu’à l’adresse du hub.</translation>
        </message>
        <message>
            <source>Certificates (*.pem *.crt *.cer)</source>
            <translation>Certificats (*.pem *.crt *.cer)</translation>
        </message>
        <message>
            <source>All files (*)</source>
            <translation>Tous les fichiers (*)</translation>
        </message>
    </context>
    <context>
        <name>Import</name>
        <message>
            <source>Import a model</source>
            <translation>Importer un modèle</translation>
        </message>
        <message>
            <source>GGUF models (*.gguf)</source>
            <translation>Modèles GGUF (*.gguf)</translation>
        </message>
        <message>
            <source>ONNX model config (genai_config.json)</source>
            <translation>Configuration de modèle ONNX (genai_config.json)</translation>
        </message>
        <message>
            <source>Import {name}?</source>
            <translation>Importer {name} ?</translation>
        </message>
        <message>
            <source>A copy in Cove's models folder keeps working if the original moves; using it where it is takes no extra space.</source>
            <translation>Une copie dans le dossier des modèles de Cove continue de fonctionner si l’original est déplacé ; l’utiliser à son emplacement actuel ne prend pas d’espace supplémentaire.</translation>
        </message>
        <message>
            <source>Copy into models folder</source>
            <translation>Copier dans le dossier des modèles</translation>
        </message>
        <message>
            <source>Use where it is</source>
            <translation>Utiliser sur place</translation>
        </message>
    </context>
    <context>
        <name>MCP</name>
        <message>
            <source>Tools from the servers listed here are offered to the model in your chats, and each call asks for your consent first. A server is a program that runs on this computer, or an address it connects to, with whatever access that program or address has: add only servers you trust. Nothing starts until you add one.</source>
            <translation>Les outils des serveurs listés ici sont proposés au modèle dans vos discussions, et chaque appel demande d’abord votre accord. Un serveur est un programme qui s’exécute sur cet ordinateur, ou une adresse à laquelle Cove se connecte, avec tous les accès dont dispose ce programme ou cette adresse : n’ajoutez que des serveurs de confiance. Rien ne démarre tant que vous n’en avez pas ajouté un.</translation>
        </message>
        <message>
            <source>off</source>
            <translation>désactivé</translation>
        </message>
        <message>
            <source>connecting…</source>
            <translation>connexion…</translation>
        </message>
        <message>
            <source>{n} tools: {names} and {more} more</source>
            <translation>{n} outils : {names} et {more} autres</translation>
        </message>
        <message>
            <source>1 tool: {names}</source>
            <translation>1 outil : {names}</translation>
        </message>
        <message>
            <source>{n} tools: {names}</source>
            <translation>{n} outils : {names}</translation>
        </message>
        <message>
            <source>failed: {reason}</source>
            <translation>échec : {reason}</translation>
        </message>
        <message>
            <source>Add an MCP server</source>
            <translation>Ajouter un serveur MCP</translation>
        </message>
        <message>
            <source>Name</source>
            <translation>Nom</translation>
        </message>
        <message>
            <source>Command or address</source>
            <translation>Commande ou adresse</translation>
        </message>
        <message>
            <source>A command starts the server on this computer (stdio); an http:// or https:// address connects to a running one (Streamable HTTP).</source>
            <translation>Une commande démarre le serveur sur cet ordinateur (stdio) ; une adresse http:// ou https:// permet de se connecter à un serveur déjà en cours d’exécution (Streamable HTTP).</translation>
        </message>
        <message>
            <source>There is already a server called {name}.</source>
            <translation>Un serveur nommé {name} existe déjà.</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>Serveurs MCP</translation>
        </message>
        <message>
            <source>Offer these tools in chats</source>
            <translation>Proposer ces outils dans les discussions</translation>
        </message>
        <message>
            <source>Add…</source>
            <translation>Ajouter…</translation>
        </message>
        <message>
            <source>Import mcp.json…</source>
            <translation>Importer mcp.json…</translation>
        </message>
        <message>
            <source>Remove</source>
            <translation>Retirer</translation>
        </message>
        <message>
            <source>Reconnect</source>
            <translation>Reconnecter</translation>
        </message>
        <message>
            <source>Forget “Always allow”</source>
            <translation>Oublier « Toujours autoriser »</translation>
        </message>
        <message>
            <source>Close</source>
            <translation>Fermer</translation>
        </message>
        <message>
            <source>Always allowed: {tools}</source>
            <translation>Toujours autorisés : {tools}</translation>
        </message>
        <message>
            <source>No tool is always allowed</source>
            <translation>Aucun outil n’est toujours autorisé</translation>
        </message>
        <message>
            <source>Import MCP servers</source>
            <translation>Importer des serveurs MCP</translation>
        </message>
    </context>
    <context>
        <name>Message</name>
        <message>
            <source>Image</source>
            <translation>Image</translation>
        </message>
        <message>
            <source>{name} ({width} x {height}): click to open it</source>
            <translation>{name} ({width} x {height}) : cliquez pour l’ouvrir</translation>
        </message>
        <message>
            <source>{name} could not be read.</source>
            <translation>Impossible de lire {name}.</translation>
        </message>
        <message>
            <source>This image could not be read.</source>
            <translation>Impossible de lire cette image.</translation>
        </message>
        <message>
            <source>Thinking…</source>
            <translation>Réflexion…</translation>
        </message>
        <message>
            <source>Reasoning</source>
            <translation>Raisonnement</translation>
        </message>
        <message>
            <source>1 word</source>
            <translation>1 mot</translation>
        </message>
        <message>
            <source>{n} words</source>
            <translation>{n} mots</translation>
        </message>
        <message>
            <source>Previous version</source>
            <translation>Version précédente</translation>
        </message>
        <message>
            <source>Next version</source>
            <translation>Version suivante</translation>
        </message>
        <message>
            <source>Version {index} of {count}</source>
            <translation>Version {index} sur {count}</translation>
        </message>
        <message>
            <source>Stopped</source>
            <translation>Arrêtée</translation>
        </message>
        <message>
            <source>Interrupted</source>
            <translation>Interrompue</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Échec</translation>
        </message>
        <message>
            <source>You</source>
            <translation>Vous</translation>
        </message>
        <message>
            <source>Copy</source>
            <translation>Copier</translation>
        </message>
        <message>
            <source>Copy this message as Markdown</source>
            <translation>Copier ce message en Markdown</translation>
        </message>
        <message>
            <source>Edit</source>
            <translation>Modifier</translation>
        </message>
        <message>
            <source>Edit this message and send it again (the original is kept as a version)</source>
            <translation>Modifier ce message et l’envoyer à nouveau (l’original est conservé comme version)</translation>
        </message>
        <message>
            <source>Regenerate</source>
            <translation>Régénérer</translation>
        </message>
        <message>
            <source>Write this reply again (this one is kept as a version)</source>
            <translation>Réécrire cette réponse (celle-ci est conservée comme version)</translation>
        </message>
        <message>
            <source>Write this reply again with another model</source>
            <translation>Réécrire cette réponse avec un autre modèle</translation>
        </message>
        <message>
            <source>Regenerate with…</source>
            <translation>Régénérer avec…</translation>
        </message>
        <message>
            <source>Continue</source>
            <translation>Continuer</translation>
        </message>
        <message>
            <source>Write more of this reply, which stopped at its length limit</source>
            <translation>Poursuivre cette réponse, qui s’est arrêtée à sa limite de longueur</translation>
        </message>
        <message>
            <source>Branch from here</source>
            <translation>Créer une branche ici</translation>
        </message>
        <message>
            <source>Start a new chat with the conversation up to this message</source>
            <translation>Commencer une nouvelle discussion avec la conversation jusqu’à ce message</translation>
        </message>
        <message>
            <source>Delete</source>
            <translation>Supprimer</translation>
        </message>
        <message>
            <source>Delete this message (it can be undone)</source>
            <translation>Supprimer ce message (action annulable)</translation>
        </message>
        <message>
            <source>Waiting for the model…</source>
            <translation>En attente du modèle…</translation>
        </message>
        <message>
            <source>Your message</source>
            <translation>Votre message</translation>
        </message>
        <message>
            <source>Reply from {speaker}</source>
            <translation>Réponse de {speaker}</translation>
        </message>
        <message>
            <source>Reply from the model</source>
            <translation>Réponse du modèle</translation>
        </message>
        <message>
            <source>No other model is installed</source>
            <translation>Aucun autre modèle n’est installé</translation>
        </message>
        <message>
            <source>Regenerate with {model}</source>
            <translation>Régénérer avec {model}</translation>
        </message>
        <message>
            <source>Not saved yet</source>
            <translation>Pas encore enregistrée</translation>
        </message>
        <message>
            <source>The disk is full: Cove saves this reply as soon as there is room.</source>
            <translation>Le disque est plein : Cove enregistre cette réponse dès qu’il y a de la place.</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} jetons</translation>
        </message>
        <message>
            <source>{rate} tokens/s</source>
            <translation>{rate} jetons/s</translation>
        </message>
        <message>
            <source>first token {seconds} s</source>
            <translation>premier jeton en {seconds} s</translation>
        </message>
        <message>
            <source>The reply reached its length limit (max tokens in the chat settings).</source>
            <translation>La réponse a atteint sa limite de longueur (jetons max. dans les réglages de la discussion).</translation>
        </message>
        <message>
            <source>Message copied</source>
            <translation>Message copié</translation>
        </message>
        <message>
            <source>Code copied</source>
            <translation>Code copié</translation>
        </message>
        <message>
            <source>Edit message</source>
            <translation>Modifier le message</translation>
        </message>
        <message>
            <source>Cancel</source>
            <translation>Annuler</translation>
        </message>
        <message>
            <source>Save &amp;&amp; send</source>
            <translation>Enregistrer &amp;&amp; envoyer</translation>
        </message>
        <message>
            <source>Save and send</source>
            <translation>Enregistrer et envoyer</translation>
        </message>
    </context>
    <context>
        <name>Model fit</name>
        <message>
            <source>{device}: weights {weights} + KV cache {kv_cache} + compute {compute} + runtime {runtime} = {total} of {free} free</source>
            <translation>{device} : poids {weights} + cache KV {kv_cache} + calcul {compute} + environnement d’exécution {runtime} = {total} sur {free} libres</translation>
        </message>
        <message>
            <source>Runs with {backend} on {device}, {tokens}-token context</source>
            <translation>S’exécute avec {backend} sur {device}, contexte de {tokens} jetons</translation>
        </message>
        <message>
            <source>Fits ({device}, {context} context)</source>
            <translation>Tient ({device}, contexte de {context})</translation>
        </message>
        <message>
            <source>Fits at {context} context (not {requested})</source>
            <translation>Tient avec un contexte de {context} (et non {requested})</translation>
        </message>
        <message>
            <source>Fits at {context} context</source>
            <translation>Tient avec un contexte de {context}</translation>
        </message>
        <message>
            <source>Fits with {layers} of {total} layers on the GPU (slower)</source>
            <translation>Tient avec {layers} couches sur {total} sur le GPU (plus lent)</translation>
        </message>
        <message>
            <source>Can't run on this computer</source>
            <translation>Ne peut pas s’exécuter sur cet ordinateur</translation>
        </message>
        <message>
            <source>Won't fit: needs {needed}, {free} free</source>
            <translation>Ne tient pas : nécessite {needed}, {free} libres</translation>
        </message>
        <message>
            <source>Can't check: {reason}</source>
            <translation>Vérification impossible : {reason}</translation>
        </message>
    </context>
    <context>
        <name>Model picker</name>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies</source>
            <translation>Le modèle qui rédige les réponses de cette discussion</translation>
        </message>
        <message>
            <source>The model that writes this chat's replies (Ctrl+L)</source>
            <translation>Le modèle qui rédige les réponses de cette discussion (Ctrl+L)</translation>
        </message>
        <message>
            <source>{model} — not installed</source>
            <translation>{model} — non installé</translation>
        </message>
    </context>
    <context>
        <name>Models</name>
        <message>
            <source>Models</source>
            <translation>Modèles</translation>
        </message>
        <message>
            <source>Refresh</source>
            <translation>Actualiser</translation>
        </message>
        <message>
            <source>Import file…</source>
            <translation>Importer un fichier…</translation>
        </message>
        <message>
            <source>Open models folder</source>
            <translation>Ouvrir le dossier des modèles</translation>
        </message>
        <message>
            <source>Installed</source>
            <translation>Installés</translation>
        </message>
        <message>
            <source>Downloads</source>
            <translation>Téléchargements</translation>
        </message>
        <message>
            <source>Discover</source>
            <translation>Découvrir</translation>
        </message>
        <message>
            <source>Cove checks each model against the memory that is free right now, before loading it. Put GGUF files or ONNX model folders in {folder} or import them.</source>
            <translation>Avant de charger un modèle, Cove vérifie qu’il tient dans la mémoire libre à cet instant. Placez des fichiers GGUF ou des dossiers de modèles ONNX dans {folder}, ou importez-les.</translation>
        </message>
        <message>
            <source>Model</source>
            <translation>Modèle</translation>
        </message>
        <message>
            <source>Format</source>
            <translation>Format</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>Taille</translation>
        </message>
        <message>
            <source>On this computer</source>
            <translation>Sur cet ordinateur</translation>
        </message>
        <message>
            <source>Speed here</source>
            <translation>Vitesse ici</translation>
        </message>
        <message>
            <source>Cancel loading</source>
            <translation>Annuler le chargement</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>Supprimer…</translation>
        </message>
        <message>
            <source>Load</source>
            <translation>Charger</translation>
        </message>
        <message>
            <source>Compare quality…</source>
            <translation>Comparer la qualité…</translation>
        </message>
        <message>
            <source>Unfinished downloads</source>
            <translation>Téléchargements inachevés</translation>
        </message>
        <message>
            <source>Could not list the models: {error}</source>
            <translation>Impossible de lister les modèles : {error}</translation>
        </message>
        <message>
            <source>Checking…</source>
            <translation>Vérification…</translation>
        </message>
        <message>
            <source>Not checked: another computer's engine is in use</source>
            <translation>Non vérifié : le moteur d’un autre ordinateur est utilisé</translation>
        </message>
        <message>
            <source>&lt;b&gt;{name}&lt;/b&gt; — {kind}, {size}</source>
            <translation>&lt;b&gt;{name}&lt;/b&gt; — {kind}, {size}</translation>
        </message>
        <message>
            <source>Vision: reads images with {projector}, beside it</source>
            <translation>Vision : lit les images avec {projector}, placé à côté</translation>
        </message>
        <message>
            <source>Replies at {speed}</source>
            <translation>Répond à {speed}</translation>
        </message>
        <message>
            <source>Cove deletes only the models in its models folder.</source>
            <translation>Cove ne supprime que les modèles de son dossier des modèles.</translation>
        </message>
        <message>
            <source>This model does not fit in the memory that is free.</source>
            <translation>Ce modèle ne tient pas dans la mémoire libre.</translation>
        </message>
        <message>
            <source>How much {name} loses in another build: both answer the same questions</source>
            <translation>Ce que {name} perd dans une autre version : les deux répondent aux mêmes questions</translation>
        </message>
        <message>
            <source>Needs a second build of this model (another quantization).</source>
            <translation>Il faut une seconde version de ce modèle (une autre quantification).</translation>
        </message>
        <message>
            <source>{name} is the model loaded in the chat, so it cannot be deleted. Load another model first, then delete this one.</source>
            <translation>{name} est le modèle chargé dans la discussion : il ne peut donc pas être supprimé. Chargez d’abord un autre modèle, puis supprimez celui-ci.</translation>
        </message>
        <message>
            <source>Delete {name} ({size}) from {where}? Downloading it again fetches the whole file.</source>
            <translation>Supprimer {name} ({size}) de {where} ? Pour le récupérer, il faudra retélécharger le fichier entier.</translation>
        </message>
        <message>
            <source>Its vision projector goes with it unless another model uses it.</source>
            <translation>Son projecteur de vision est supprimé avec lui, sauf si un autre modèle l’utilise.</translation>
        </message>
        <message>
            <source>Delete model</source>
            <translation>Supprimer le modèle</translation>
        </message>
        <message>
            <source>{name} and its vision projector</source>
            <translation>{name} et son projecteur de vision</translation>
        </message>
        <message>
            <source>Deleted {what}: {size} freed.</source>
            <translation>Supprimé : {what}. {size} libérés.</translation>
        </message>
        <message>
            <source>{name} was not deleted. {error}</source>
            <translation>{name} n’a pas été supprimé. {error}</translation>
        </message>
        <message>
            <source>Could not discard {name}: {error}</source>
            <translation>Impossible d’abandonner {name} : {error}</translation>
        </message>
        <message>
            <source>Discarded the partial download of {name}: {size} freed.</source>
            <translation>Téléchargement partiel de {name} abandonné : {size} libérés.</translation>
        </message>
        <message>
            <source>Downloads ({count})</source>
            <translation>Téléchargements ({count})</translation>
        </message>
        <message>
            <source>{model} reads images with {projector}, beside it.</source>
            <translation>{model} lit les images avec {projector}, placé à côté.</translation>
        </message>
        <message>
            <source>Copying {name} into the models folder…</source>
            <translation>Copie de {name} dans le dossier des modèles…</translation>
        </message>
        <message>
            <source>Imported {name} with its vision projector {projector}: in {where}.</source>
            <translation>{name} importé avec son projecteur de vision {projector} : dans {where}.</translation>
        </message>
        <message>
            <source>Imported {name}: a copy is in {where}.</source>
            <translation>{name} importé : une copie se trouve dans {where}.</translation>
        </message>
        <message>
            <source>Reads prompts at about {tps} tokens/s.</source>
            <translation>Lit les prompts à environ {tps} jetons/s.</translation>
        </message>
        <message>
            <source>Measured on this computer, in its latest run. {prompt}</source>
            <translation>Mesuré sur cet ordinateur, lors de sa dernière exécution. {prompt}</translation>
        </message>
        <message>
            <source>predicted</source>
            <translation>estimé</translation>
        </message>
        <message>
            <source>Built into Cove ({file})</source>
            <translation>Intégré à Cove ({file})</translation>
        </message>
        <message>
            <source>● loaded</source>
            <translation>● chargé</translation>
        </message>
        <message>
            <source>Vision</source>
            <translation>Vision</translation>
        </message>
        <message>
            <source>{format}, quantization {code}</source>
            <translation>{format}, quantification {code}</translation>
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
            <translation>En mémoire</translation>
        </message>
        <message>
            <source>Size</source>
            <translation>Taille</translation>
        </message>
        <message>
            <source>Context</source>
            <translation>Contexte</translation>
        </message>
        <message>
            <source>Replies at once</source>
            <translation>Réponses simultanées</translation>
        </message>
        <message>
            <source>Stays</source>
            <translation>Reste chargé</translation>
        </message>
        <message>
            <source>{n} tokens</source>
            <translation>{n} jetons</translation>
        </message>
        <message>
            <source>Unload</source>
            <translation>Décharger</translation>
        </message>
        <message>
            <source>Free the memory {name} holds</source>
            <translation>Libérer la mémoire occupée par {name}</translation>
        </message>
        <message>
            <source>{running} of {parallel} replies</source>
            <translation>{running} réponses sur {parallel}</translation>
        </message>
        <message>
            <source>{running} of 1 reply</source>
            <translation>{running} réponse sur 1</translation>
        </message>
        <message>
            <source>{replies}, {n} waiting</source>
            <translation>{replies}, {n} en attente</translation>
        </message>
        <message>
            <source>unloaded in {time}</source>
            <translation>déchargé dans {time}</translation>
        </message>
        <message>
            <source>until unloaded</source>
            <translation>jusqu’au déchargement</translation>
        </message>
        <message>
            <source>{time} once idle</source>
            <translation>{time} après inactivité</translation>
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
            <translation>← Discussion</translation>
        </message>
        <message>
            <source>Back to chat</source>
            <translation>Retour à la discussion</translation>
        </message>
    </context>
    <context>
        <name>Presets</name>
        <message>
            <source>Preset</source>
            <translation>Préréglage</translation>
        </message>
        <message>
            <source>Start the chat from a preset: a system prompt and sampling settings</source>
            <translation>Commencer la discussion à partir d’un préréglage : un prompt système et des réglages d’échantillonnage</translation>
        </message>
        <message>
            <source>Preset: a system prompt and sampling settings (and sometimes a model) to start from</source>
            <translation>Préréglage : un prompt système et des réglages d’échantillonnage (et parfois un modèle) comme point de départ</translation>
        </message>
        <message>
            <source>Choose a preset</source>
            <translation>Choisir un préréglage</translation>
        </message>
        <message>
            <source>{name} (default)</source>
            <translation>{name} (par défaut)</translation>
        </message>
        <message>
            <source>Presets</source>
            <translation>Préréglages</translation>
        </message>
        <message>
            <source>Presets menu</source>
            <translation>Menu des préréglages</translation>
        </message>
        <message>
            <source>Save, import, export or set the default preset</source>
            <translation>Enregistrer, importer, exporter ou définir le préréglage par défaut</translation>
        </message>
        <message>
            <source>Save current as preset…</source>
            <translation>Enregistrer les réglages actuels comme préréglage…</translation>
        </message>
        <message>
            <source>Set as default for new chats</source>
            <translation>Définir par défaut pour les nouvelles discussions</translation>
        </message>
        <message>
            <source>Start new chats without a preset</source>
            <translation>Commencer les nouvelles discussions sans préréglage</translation>
        </message>
        <message>
            <source>Delete preset</source>
            <translation>Supprimer le préréglage</translation>
        </message>
        <message>
            <source>Import presets…</source>
            <translation>Importer des préréglages…</translation>
        </message>
        <message>
            <source>Export presets…</source>
            <translation>Exporter les préréglages…</translation>
        </message>
    </context>
    <context>
        <name>Quantization</name>
        <message>
            <source>original quality</source>
            <translation>qualité d’origine</translation>
        </message>
        <message>
            <source>near original quality</source>
            <translation>qualité quasi d’origine</translation>
        </message>
        <message>
            <source>very high quality</source>
            <translation>très haute qualité</translation>
        </message>
        <message>
            <source>high quality</source>
            <translation>haute qualité</translation>
        </message>
        <message>
            <source>medium quality</source>
            <translation>qualité moyenne</translation>
        </message>
        <message>
            <source>low quality</source>
            <translation>qualité basse</translation>
        </message>
        <message>
            <source>lowest quality</source>
            <translation>qualité la plus basse</translation>
        </message>
        <message>
            <source>for models trained at this precision</source>
            <translation>pour les modèles entraînés à cette précision</translation>
        </message>
        <message>
            <source>{n}-bit</source>
            <translation>{n} bits</translation>
        </message>
        <message>
            <source>{bits} whole numbers</source>
            <translation>entiers sur {bits}</translation>
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
            <translation>{bits} ({code}, {share} des poids)</translation>
        </message>
        <message>
            <source>{bits} ({code}, {share})</source>
            <translation>{bits} ({code}, {share})</translation>
        </message>
        <message>
            <source>All {head}</source>
            <translation>Entièrement {head}</translation>
        </message>
        <message>
            <source>Mostly {head}; also {others}</source>
            <translation>Surtout {head} ; aussi {others}</translation>
        </message>
        <message>
            <source>Mixed: {head}, {others}</source>
            <translation>Mélange : {head}, {others}</translation>
        </message>
    </context>
    <context>
        <name>Saved state</name>
        <message>
            <source>After each reply Cove keeps the model's working memory of the conversation on this computer, so that reopening a long chat, after a restart or from another chat, continues at once instead of reading the whole conversation again. It holds what the chat said: deleting a chat deletes its saved state, and Clear removes all of it.</source>
            <translation>Après chaque réponse, Cove conserve sur cet ordinateur la mémoire de travail du modèle pour la conversation : rouvrir une longue discussion, après un redémarrage ou depuis une autre discussion, reprend alors immédiatement au lieu de relire toute la conversation. Cet état contient ce qui a été dit dans la discussion : supprimer une discussion supprime son état enregistré, et « Effacer l’état enregistré » supprime tout.</translation>
        </message>
        <message>
            <source>Saved conversation state</source>
            <translation>État enregistré des conversations</translation>
        </message>
        <message>
            <source>Off</source>
            <translation>Désactivé</translation>
        </message>
        <message>
            <source>Reading…</source>
            <translation>Lecture…</translation>
        </message>
        <message>
            <source>Clear saved state</source>
            <translation>Effacer l’état enregistré</translation>
        </message>
        <message>
            <source>Keep up to</source>
            <translation>Conserver jusqu’à</translation>
        </message>
        <message>
            <source>In use</source>
            <translation>Utilisé</translation>
        </message>
        <message>
            <source>Kept by the engine on {where}, not here</source>
            <translation>Conservé par le moteur sur {where}, pas ici</translation>
        </message>
        <message>
            <source>Off for this engine</source>
            <translation>Désactivé pour ce moteur</translation>
        </message>
        <message>
            <source>Nothing saved</source>
            <translation>Rien d’enregistré</translation>
        </message>
        <message>
            <source>Unknown ({reason})</source>
            <translation>Inconnu ({reason})</translation>
        </message>
        <message>
            <source>Clearing…</source>
            <translation>Effacement…</translation>
        </message>
    </context>
    <context>
        <name>Settings</name>
        <message>
            <source>Follow the system</source>
            <translation>Comme le système</translation>
        </message>
        <message>
            <source>Light</source>
            <translation>Clair</translation>
        </message>
        <message>
            <source>Dark</source>
            <translation>Sombre</translation>
        </message>
        <message>
            <source>Appearance</source>
            <translation>Apparence</translation>
        </message>
        <message>
            <source>Theme</source>
            <translation>Thème</translation>
        </message>
        <message>
            <source>Text size</source>
            <translation>Taille du texte</translation>
        </message>
        <message>
            <source>Language</source>
            <translation>Langue</translation>
        </message>
        <message>
            <source>The system's language</source>
            <translation>Langue du système</translation>
        </message>
        <message>
            <source>The language of Cove's window. Replies come in the language you write in.</source>
            <translation>La langue de la fenêtre de Cove. Les réponses viennent dans la langue dans laquelle vous écrivez.</translation>
        </message>
        <message>
            <source>The new language is used when Cove starts again.</source>
            <translation>La nouvelle langue sera utilisée au prochain démarrage de Cove.</translation>
        </message>
        <message>
            <source>Restart Cove now</source>
            <translation>Redémarrer Cove maintenant</translation>
        </message>
        <message>
            <source>Privacy</source>
            <translation>Confidentialité</translation>
        </message>
        <message>
            <source>Everything stays on this computer. What you type, the replies, your documents and your chat history never leave it: there is no account and no telemetry.</source>
            <translation>Tout reste sur cet ordinateur. Ce que vous tapez, les réponses, vos documents et votre historique des discussions n’en sortent jamais : il n’y a ni compte ni télémétrie.</translation>
        </message>
        <message>
            <source>When Cove uses the network</source>
            <translation>Quand Cove utilise le réseau</translation>
        </message>
        <message>
            <source>When you download a model: only the files you chose.</source>
            <translation>Quand vous téléchargez un modèle : uniquement les fichiers que vous avez choisis.</translation>
        </message>
        <message>
            <source>When you choose to use another computer's engine (Settings, Engine).</source>
            <translation>Quand vous choisissez d’utiliser le moteur d’un autre ordinateur (Réglages, Moteur).</translation>
        </message>
        <message>
            <source>When you share this computer's engine on your network: other computers need its key.</source>
            <translation>Quand vous partagez le moteur de cet ordinateur sur votre réseau : les autres ordinateurs ont besoin de sa clé.</translation>
        </message>
        <message>
            <source>The reporting switches of the libraries Cove uses are held off, whatever this computer's settings say: {names}.</source>
            <translation>Les options de télémétrie des bibliothèques utilisées par Cove restent désactivées, quels que soient les réglages de cet ordinateur : {names}.</translation>
        </message>
        <message>
            <source>Your data</source>
            <translation>Vos données</translation>
        </message>
        <message>
            <source>Chats, documents' indexes, models and settings are kept in {folder}.</source>
            <translation>Les discussions, les index des documents, les modèles et les réglages sont conservés dans {folder}.</translation>
        </message>
        <message>
            <source>Open the data folder</source>
            <translation>Ouvrir le dossier de données</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Réglages</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Raccourcis clavier</translation>
        </message>
        <message>
            <source>Welcome page</source>
            <translation>Page d’accueil</translation>
        </message>
        <message>
            <source>Settings sections</source>
            <translation>Sections des réglages</translation>
        </message>
        <message>
            <source>Engine</source>
            <translation>Moteur</translation>
        </message>
        <message>
            <source>MCP servers</source>
            <translation>Serveurs MCP</translation>
        </message>
        <message>
            <source>Saved state</source>
            <translation>État enregistré</translation>
        </message>
        <message>
            <source>Data</source>
            <translation>Données</translation>
        </message>
    </context>
    <context>
        <name>Shortcuts</name>
        <message>
            <source>Start a new chat</source>
            <translation>Commencer une nouvelle discussion</translation>
        </message>
        <message>
            <source>Send the message</source>
            <translation>Envoyer le message</translation>
        </message>
        <message>
            <source>A new line in the message</source>
            <translation>Aller à la ligne dans le message</translation>
        </message>
        <message>
            <source>Stop the reply being written; close find; cancel an edit</source>
            <translation>Arrêter la réponse en cours ; fermer la recherche ; annuler une modification</translation>
        </message>
        <message>
            <source>Choose the chat's model</source>
            <translation>Choisir le modèle de la discussion</translation>
        </message>
        <message>
            <source>Find in this chat (Enter: next match, Shift+Enter: previous)</source>
            <translation>Rechercher dans cette discussion (Enter : résultat suivant, Shift+Enter : précédent)</translation>
        </message>
        <message>
            <source>Search every chat</source>
            <translation>Rechercher dans toutes les discussions</translation>
        </message>
        <message>
            <source>Bring back the message just deleted</source>
            <translation>Restaurer le message qui vient d’être supprimé</translation>
        </message>
        <message>
            <source>Larger or smaller text</source>
            <translation>Agrandir ou réduire le texte</translation>
        </message>
        <message>
            <source>The default text size</source>
            <translation>Taille du texte par défaut</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Réglages</translation>
        </message>
        <message>
            <source>Rename the chat or folder chosen in the sidebar</source>
            <translation>Renommer la discussion ou le dossier choisi dans la barre latérale</translation>
        </message>
        <message>
            <source>The menu of the chat or folder chosen in the sidebar</source>
            <translation>Le menu de la discussion ou du dossier choisi dans la barre latérale</translation>
        </message>
        <message>
            <source>This list of shortcuts</source>
            <translation>Cette liste de raccourcis</translation>
        </message>
        <message>
            <source>Keyboard shortcuts</source>
            <translation>Raccourcis clavier</translation>
        </message>
        <message>
            <source>Keys</source>
            <translation>Touches</translation>
        </message>
        <message>
            <source>What they do</source>
            <translation>Action</translation>
        </message>
    </context>
    <context>
        <name>Sidebar</name>
        <message>
            <source>Folder name</source>
            <translation>Nom du dossier</translation>
        </message>
        <message>
            <source>Chat title</source>
            <translation>Titre de la discussion</translation>
        </message>
        <message>
            <source>Rename</source>
            <translation>Renommer</translation>
        </message>
        <message>
            <source>1 chat</source>
            <translation>1 discussion</translation>
        </message>
        <message>
            <source>{count} chats</source>
            <translation>{count} discussions</translation>
        </message>
        <message>
            <source>Start a new conversation (Ctrl+N)</source>
            <translation>Commencer une nouvelle conversation (Ctrl+N)</translation>
        </message>
        <message>
            <source>Search conversations</source>
            <translation>Rechercher dans les conversations</translation>
        </message>
        <message>
            <source>A folder to drag chats into</source>
            <translation>Un dossier où faire glisser des discussions</translation>
        </message>
        <message>
            <source>Keep the selected chat at the top of the list</source>
            <translation>Garder la discussion sélectionnée en haut de la liste</translation>
        </message>
        <message>
            <source>Conversations</source>
            <translation>Conversations</translation>
        </message>
        <message>
            <source>No conversations yet.</source>
            <translation>Aucune conversation pour l’instant.</translation>
        </message>
        <message>
            <source>Models</source>
            <translation>Modèles</translation>
        </message>
        <message>
            <source>Installed models and whether they fit here</source>
            <translation>Les modèles installés et s’ils tiennent sur cet ordinateur</translation>
        </message>
        <message>
            <source>Hardware</source>
            <translation>Matériel</translation>
        </message>
        <message>
            <source>What this computer has and what Cove uses</source>
            <translation>Ce dont dispose cet ordinateur et ce que Cove utilise</translation>
        </message>
        <message>
            <source>Documents</source>
            <translation>Documents</translation>
        </message>
        <message>
            <source>Your files, indexed to ask questions about</source>
            <translation>Vos fichiers, indexés pour pouvoir les interroger</translation>
        </message>
        <message>
            <source>Settings</source>
            <translation>Réglages</translation>
        </message>
        <message>
            <source>Appearance, language, engine, MCP servers, privacy (Ctrl+,)</source>
            <translation>Apparence, langue, moteur, serveurs MCP, confidentialité (Ctrl+,)</translation>
        </message>
        <message>
            <source>open</source>
            <translation>ouvert</translation>
        </message>
        <message>
            <source>closed</source>
            <translation>fermé</translation>
        </message>
        <message>
            <source>Folder, {chats}, {state}</source>
            <translation>Dossier, {chats}, {state}</translation>
        </message>
        <message>
            <source>In the folder {name}</source>
            <translation>Dans le dossier {name}</translation>
        </message>
        <message>
            <source>Nothing found.</source>
            <translation>Aucun résultat.</translation>
        </message>
        <message>
            <source>Cove is answering here</source>
            <translation>Cove répond ici</translation>
        </message>
        <message>
            <source>Unpin</source>
            <translation>Désépingler</translation>
        </message>
        <message>
            <source>Pin</source>
            <translation>Épingler</translation>
        </message>
        <message>
            <source>Export as Markdown…</source>
            <translation>Exporter en Markdown…</translation>
        </message>
        <message>
            <source>Export as JSON…</source>
            <translation>Exporter en JSON…</translation>
        </message>
        <message>
            <source>Delete…</source>
            <translation>Supprimer…</translation>
        </message>
        <message>
            <source>Move to folder</source>
            <translation>Déplacer vers un dossier</translation>
        </message>
        <message>
            <source>New folder…</source>
            <translation>Nouveau dossier…</translation>
        </message>
        <message>
            <source>Remove from folder</source>
            <translation>Retirer du dossier</translation>
        </message>
        <message>
            <source>Collapse</source>
            <translation>Réduire</translation>
        </message>
        <message>
            <source>Expand</source>
            <translation>Développer</translation>
        </message>
        <message>
            <source>Rename folder</source>
            <translation>Renommer le dossier</translation>
        </message>
        <message>
            <source>New folder</source>
            <translation>Nouveau dossier</translation>
        </message>
        <message>
            <source>Delete folder (keeps its chats)</source>
            <translation>Supprimer le dossier (conserve ses discussions)</translation>
        </message>
        <message>
            <source>Delete chat</source>
            <translation>Supprimer la discussion</translation>
        </message>
        <message>
            <source>Delete this conversation and all its messages? This cannot be undone.</source>
            <translation>Supprimer cette conversation et tous ses messages ? Cette action est irréversible.</translation>
        </message>
        <message>
            <source>Nothing to export yet: send a message first.</source>
            <translation>Rien à exporter pour l’instant : envoyez d’abord un message.</translation>
        </message>
        <message>
            <source>Export chat</source>
            <translation>Exporter la discussion</translation>
        </message>
        <message>
            <source>Import chat</source>
            <translation>Importer une discussion</translation>
        </message>
        <message>
            <source>JSON files (*.json);;All files (*)</source>
            <translation>Fichiers JSON (*.json);;Tous les fichiers (*)</translation>
        </message>
        <message>
            <source>The chat history is still opening; try again in a moment.</source>
            <translation>L’historique des discussions est encore en cours d’ouverture ; réessayez dans un instant.</translation>
        </message>
        <message>
            <source>Moved out of the folder</source>
            <translation>Retirée du dossier</translation>
        </message>
        <message>
            <source>Moved to {folder}</source>
            <translation>Déplacée vers {folder}</translation>
        </message>
        <message>
            <source>Folder deleted; its chats are back in the list</source>
            <translation>Dossier supprimé ; ses discussions sont revenues dans la liste</translation>
        </message>
        <message>
            <source>New chat</source>
            <translation>Nouvelle discussion</translation>
        </message>
        <message>
            <source>Today</source>
            <translation>Aujourd’hui</translation>
        </message>
        <message>
            <source>Yesterday</source>
            <translation>Hier</translation>
        </message>
        <message>
            <source>Previous 7 days</source>
            <translation>7 derniers jours</translation>
        </message>
        <message>
            <source>Older</source>
            <translation>Plus ancien</translation>
        </message>
        <message>
            <source>Untitled</source>
            <translation>Sans titre</translation>
        </message>
        <message>
            <source>Pinned</source>
            <translation>Épinglées</translation>
        </message>
        <message>
            <source>Folders</source>
            <translation>Dossiers</translation>
        </message>
        <message>
            <source>No chats yet: drag one here</source>
            <translation>Aucune discussion pour l’instant : faites-en glisser une ici</translation>
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
            <translation>page {page}</translation>
        </message>
        <message>
            <source>Asked while the collection was still being indexed: files not read yet could not be searched.</source>
            <translation>Question posée pendant l’indexation de la collection : les fichiers pas encore lus n’ont pas pu être consultés.</translation>
        </message>
        <message>
            <source>Sources</source>
            <translation>Sources</translation>
        </message>
        <message>
            <source>(the answer cites none; these hold what it says)</source>
            <translation>(la réponse n’en cite aucune ; celles-ci contiennent ce qu’elle affirme)</translation>
        </message>
        <message>
            <source>Passages searched</source>
            <translation>Passages consultés</translation>
        </message>
        <message>
            <source>Closest I found</source>
            <translation>Les plus proches trouvés</translation>
        </message>
        <message>
            <source>Also given to the model:</source>
            <translation>Également fournis au modèle :</translation>
        </message>
    </context>
    <context>
        <name>Start</name>
        <message>
            <source>Cove is already open on this data folder; it was brought to the front.</source>
            <translation>Cove est déjà ouvert sur ce dossier de données ; sa fenêtre a été mise au premier plan.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder but did not answer; it may still be starting. Try again in a moment.</source>
            <translation>Cove est déjà ouvert sur ce dossier de données mais n’a pas répondu ; il démarre peut-être encore. Réessayez dans un instant.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder (process {pid}) but did not answer; it may still be starting, or not responding: end that process if it does not come back.</source>
            <translation>Cove est déjà ouvert sur ce dossier de données (processus {pid}) mais n’a pas répondu ; il démarre peut-être encore, ou ne répond plus : arrêtez ce processus s’il ne revient pas.</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder: close it, or give this run a data folder of its own (COVE_DATA_DIR).</source>
            <translation>Cove est déjà ouvert sur ce dossier de données : fermez-le, ou donnez à ce lancement son propre dossier de données (COVE_DATA_DIR).</translation>
        </message>
        <message>
            <source>Cove is already open on this data folder (process {pid}): close it, or give this run a data folder of its own (COVE_DATA_DIR).</source>
            <translation>Cove est déjà ouvert sur ce dossier de données (processus {pid}) : fermez-le, ou donnez à ce lancement son propre dossier de données (COVE_DATA_DIR).</translation>
        </message>
        <message>
            <source>Not found, not attached: {names}</source>
            <translation>Introuvable, non joint : {names}</translation>
        </message>
    </context>
    <context>
        <name>Status</name>
        <message>
            <source>no model</source>
            <translation>aucun modèle</translation>
        </message>
        <message>
            <source>on {device}</source>
            <translation>sur {device}</translation>
        </message>
        <message>
            <source>Runs with {backend} on {device}.</source>
            <translation>S’exécute avec {backend} sur {device}.</translation>
        </message>
        <message>
            <source>Context {n} tokens. Click to choose another model.</source>
            <translation>Contexte de {n} jetons. Cliquez pour choisir un autre modèle.</translation>
        </message>
        <message>
            <source>Choose a model</source>
            <translation>Choisir un modèle</translation>
        </message>
        <message>
            <source>last long prompt: {n} tokens read at {rate} tokens/s</source>
            <translation>dernier long prompt : {n} jetons lus à {rate} jetons/s</translation>
        </message>
        <message>
            <source>{rate} tokens/s · first token {ttft} s</source>
            <translation>{rate} jetons/s · premier jeton {ttft} s</translation>
        </message>
        <message>
            <source>Context {used} / {limit}</source>
            <translation>Contexte {used} / {limit}</translation>
        </message>
        <message>
            <source>Context ~{used} tokens</source>
            <translation>Contexte ~{used} jetons</translation>
        </message>
        <message>
            <source>Tokens this conversation uses of the model's context window.</source>
            <translation>Jetons que cette conversation occupe dans la fenêtre de contexte du modèle.</translation>
        </message>
    </context>
    <context>
        <name>Tool calls</name>
        <message>
            <source>Waiting for your answer</source>
            <translation>En attente de votre réponse</translation>
        </message>
        <message>
            <source>Running…</source>
            <translation>Exécution…</translation>
        </message>
        <message>
            <source>Done</source>
            <translation>Terminé</translation>
        </message>
        <message>
            <source>Failed</source>
            <translation>Échec</translation>
        </message>
        <message>
            <source>Denied</source>
            <translation>Refusé</translation>
        </message>
        <message>
            <source>Arguments</source>
            <translation>Arguments</translation>
        </message>
        <message>
            <source>Result</source>
            <translation>Résultat</translation>
        </message>
        <message>
            <source>Allow once</source>
            <translation>Autoriser une fois</translation>
        </message>
        <message>
            <source>Always allow this tool</source>
            <translation>Toujours autoriser cet outil</translation>
        </message>
        <message>
            <source>Deny</source>
            <translation>Refuser</translation>
        </message>
        <message>
            <source>Run {tool} from the {server} server?</source>
            <translation>Exécuter {tool} du serveur {server} ?</translation>
        </message>
        <message>
            <source>… ({n} characters in all)</source>
            <translation>… ({n} caractères au total)</translation>
        </message>
        <message>
            <source>Hide</source>
            <translation>Masquer</translation>
        </message>
        <message>
            <source>Details</source>
            <translation>Détails</translation>
        </message>
    </context>
    <context>
        <name>Unfinished downloads</name>
        <message>
            <source>Download</source>
            <translation>Téléchargement</translation>
        </message>
        <message>
            <source>Fetched</source>
            <translation>Récupéré</translation>
        </message>
        <message>
            <source>{done} of {total} · {disk} on disk</source>
            <translation>{done} sur {total} · {disk} sur le disque</translation>
        </message>
        <message>
            <source>{done} · {disk} on disk</source>
            <translation>{done} · {disk} sur le disque</translation>
        </message>
        <message>
            <source>Resume</source>
            <translation>Reprendre</translation>
        </message>
        <message>
            <source>Discard</source>
            <translation>Abandonner</translation>
        </message>
    </context>
    <context>
        <name>Welcome</name>
        <message>
            <source>{cpu} (1 core)</source>
            <translation>{cpu} (1 cœur)</translation>
        </message>
        <message>
            <source>{cpu} ({n} cores)</source>
            <translation>{cpu} ({n} cœurs)</translation>
        </message>
        <message>
            <source>{size} RAM</source>
            <translation>{size} de RAM</translation>
        </message>
        <message>
            <source>Models run best here on {device}. Cove checks every model against the memory that is free before loading it.</source>
            <translation>Ici, les modèles fonctionnent le mieux sur {device}. Avant de charger un modèle, Cove vérifie qu’il tient dans la mémoire libre.</translation>
        </message>
        <message>
            <source>no graphics card that Cove can use</source>
            <translation>aucune carte graphique utilisable par Cove</translation>
        </message>
        <message>
            <source>Welcome to Cove</source>
            <translation>Bienvenue dans Cove</translation>
        </message>
        <message>
            <source>Everything stays on this computer.</source>
            <translation>Tout reste sur cet ordinateur.</translation>
        </message>
        <message>
            <source>Cove runs language models on this machine. What you type, the replies and your chat history never leave it: there is no account, no telemetry, and Cove opens no network connection unless you ask it to: to download a model, or to use another computer's engine.</source>
            <translation>Cove exécute des modèles de langage sur cette machine. Ce que vous tapez, les réponses et votre historique des discussions n’en sortent jamais : il n’y a ni compte ni télémétrie, et Cove n’ouvre aucune connexion réseau sauf si vous le demandez : pour télécharger un modèle ou pour utiliser le moteur d’un autre ordinateur.</translation>
        </message>
        <message>
            <source>What this computer can run</source>
            <translation>Ce que cet ordinateur peut exécuter</translation>
        </message>
        <message>
            <source>Looking at this computer…</source>
            <translation>Analyse de cet ordinateur…</translation>
        </message>
        <message>
            <source>Start chatting</source>
            <translation>Commencer à discuter</translation>
        </message>
        <message>
            <source>The hardware check failed ({reason}); Cove will use the processor.</source>
            <translation>L’analyse du matériel a échoué ({reason}) ; Cove utilisera le processeur.</translation>
        </message>
    </context>
    <context>
        <name>Window</name>
        <message>
            <source>Export chat as Markdown…</source>
            <translation>Exporter la discussion en Markdown…</translation>
        </message>
        <message>
            <source>Export chat as JSON…</source>
            <translation>Exporter la discussion en JSON…</translation>
        </message>
        <message>
            <source>Import chat…</source>
            <translation>Importer une discussion…</translation>
        </message>
        <message>
            <source>Rename chat</source>
            <translation>Renommer la discussion</translation>
        </message>
        <message>
            <source>Delete chat…</source>
            <translation>Supprimer la discussion…</translation>
        </message>
        <message>
            <source>MCP servers {names} could not start: see Settings › MCP servers</source>
            <translation>Les serveurs MCP {names} n’ont pas pu démarrer : voir Réglages › Serveurs MCP</translation>
        </message>
        <message>
            <source>MCP server {name} could not start: see Settings › MCP servers</source>
            <translation>Le serveur MCP {name} n’a pas pu démarrer : voir Réglages › Serveurs MCP</translation>
        </message>
        <message>
            <source>The MCP server list could not be read: {reason}</source>
            <translation>Impossible de lire la liste des serveurs MCP : {reason}</translation>
        </message>
        <message>
            <source>No chat history</source>
            <translation>Aucun historique des discussions</translation>
        </message>
        <message>
            <source>Cove's engine</source>
            <translation>Moteur de Cove</translation>
        </message>
        <message>
            <source>Opening the chat history…</source>
            <translation>Ouverture de l’historique des discussions…</translation>
        </message>
        <message>
            <source>No engine</source>
            <translation>Aucun moteur</translation>
        </message>
        <message>
            <source>The starter model, SmolLM2 135M: {verdict}.</source>
            <translation>Le modèle de démarrage, SmolLM2 135M : {verdict}.</translation>
        </message>
        <message>
            <source>The starter model, SmolLM2 135M, is loading in the background.</source>
            <translation>Le modèle de démarrage, SmolLM2 135M, se charge en arrière-plan.</translation>
        </message>
        <message>
            <source>the starter model</source>
            <translation>le modèle de démarrage</translation>
        </message>
        <message>
            <source>The model is loading. You can write now; the reply starts once it is ready.</source>
            <translation>Le modèle est en cours de chargement. Vous pouvez écrire dès maintenant ; la réponse commencera dès qu’il sera prêt.</translation>
        </message>
        <message>
            <source>Loading cancelled.</source>
            <translation>Chargement annulé.</translation>
        </message>
        <message>
            <source>Engine stopped</source>
            <translation>Moteur arrêté</translation>
        </message>
        <message>
            <source>The engine was restarted.</source>
            <translation>Le moteur a été redémarré.</translation>
        </message>
    </context>
</TS>
