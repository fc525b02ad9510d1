// Internal: where a repair keeps the files it replaces, as hard links made before anything is
// renamed (repair.h). By default a snapshot as `nodetool snapshot` makes one, so that the
// operator's usual tools list and remove it; or links under a directory of the caller's.
//
//   BackupTarget t = SnapshotBackup(RepairSnapshotTag(std::time(nullptr)));
//   // "<table dir>/snapshots/bloomcodec-repair-20260701T120000Z/": every component of the
//   // sstable, linked; manifest.json lists its Data.db
//   BLOOMCODEC_RETURN_IF_ERROR(LinkBackup(t, sstable, components, ops));
//   // later, on the node: nodetool clearsnapshot -t bloomcodec-repair-20260701T120000Z
//
// What nodetool snapshot writes (apache/cassandra ColumnFamilyStore.snapshotWithoutFlush of 2.0
// to 4.0, TakeSnapshotTask / SnapshotManifest of 4.1+), per table, in `<table dir>/snapshots/
// <tag>/` (Directories.getSnapshotDirectory: the sstable's own folder; in 1.0's layout the
// keyspace folder):
// * a hard link of every component of every sstable (SSTableReader.createLinks), same names;
// * manifest.json from 2.0: {"files": [the Data.db name of each sstable]}; 4.1 adds
//   "created_at" and "expires_at" (nodetool snapshot --ttl), 5.0 "ephemeral". 4.1+ reads it with
//   Jackson, unknown fields ignored and missing ones null (SnapshotManifestTest), and loads the
//   snapshots it finds at start-up (SnapshotLoader: `<ks>/<table>-<id>/snapshots/<tag>` with a
//   tag of [A-Za-z0-9_-]), so `nodetool listsnapshots` shows ours and `nodetool clearsnapshot
//   -t <tag>` removes it, in every release (before 4.1 clearsnapshot deletes the folders of that
//   tag under every table);
// * schema.cql from 3.0 (the table's CREATE statement, for non-system keyspaces). We cannot
//   write it: the schema is in the node's system tables, not in the sstable. It is needed only
//   to re-create a dropped table from the snapshot; restoring files into an existing table,
//   listsnapshots and clearsnapshot do without it. Ours has none, and FORMAT.md says so.
// ScyllaDB writes the same folder with its own manifest.json and schema.cql; its table loader
// ignores both names and never reads snapshots/.
//
// With a directory (--backup DIR) the links go to DIR/<the sstable folder relative to the
// repair's root>/, the same names; DIR must be on the data's file system (a hard link cannot
// cross one: that is an error before anything is renamed). No manifest there.
//
// Every directory made, link and manifest is made durable (fsync of the file and of each
// directory whose entries changed) before LinkBackup returns. A name already in the folder is
// left as it is: it holds an older copy of that component (an interrupted attempt of the same
// run, or an earlier repair backed up into the same folder), the one worth keeping.
#pragma once

#include <ctime>
#include <span>
#include <string>

#include "bloomcodec/status.h"
#include "cassandra/descriptor.h"
#include "cassandra/repair/file_ops.h"

namespace bloomcodec::cassandra {

struct BackupTarget {
  enum class Kind { kSnapshot, kDirectory, kNone };
  Kind kind = Kind::kSnapshot;
  std::string tag;       // kSnapshot
  std::string root;      // kDirectory: DIR
  std::string relative;  // kDirectory: the sstable's folder relative to the repair's root
};

BackupTarget SnapshotBackup(std::string tag);
BackupTarget DirectoryBackup(std::string root, std::string relative);
BackupTarget NoBackup();

// "bloomcodec-repair-<UTC yyyymmddThhmmssZ>": one tag per run, of the characters a snapshot tag
// may have.
std::string RepairSnapshotTag(std::time_t now);

// The folder the components are linked into, for an sstable in `sstable_dir`.
std::string BackupFolder(const BackupTarget& target, const std::string& sstable_dir);

// The manifest.json of a snapshot of `d`'s version, holding `data_files` (Data.db names).
std::string SnapshotManifest(const Descriptor& d, std::span<const std::string> data_files,
                             std::time_t created);

// Links `components` (paths in `sstable_dir`) into the target's folder, and for a snapshot adds
// the sstable's Data.db name (`data_name`) to its manifest.json. Nothing for kNone.
Status LinkBackup(const BackupTarget& target, const Descriptor& d, const std::string& sstable_dir,
                  std::span<const std::string> components, const std::string& data_name,
                  std::time_t now, FileOps& ops);

// Removes the temporary manifest files a run killed while writing a snapshot's manifest.json left
// in `<sstable_dir>/snapshots/*/` (ours by their name: manifest.json.bloomcodec_tmp).
Status RemoveManifestLeftovers(const std::string& sstable_dir, FileOps& ops);

}  // namespace bloomcodec::cassandra
