/*
 * power-loss-fs: a FUSE file system that keeps, across a power cut, only what its users made durable.
 *
 * Design. Every file, directory and symbolic link is a node with a number that is never reused. A node has two
 * states: the one its users see (volatile) and the one a power cut leaves (durable).
 *
 *   - A regular file's volatile bytes live in <backing>/work/<id>; its durable bytes in <backing>/data/<id>. Writes and
 *     truncations change only the work file and are remembered as dirty ranges and as the smallest size since the last
 *     fsync. fsync (or fdatasync) copies exactly those ranges to the data file and gives it the work file's size.
 *   - A directory's volatile entries are in memory. fsync of the directory (fsyncdir) records its entries, and the
 *     mode, owner and link target of each node they name, as its durable entries. Creating, renaming, linking or
 *     removing a name is durable once the directory holding it has been fsynced, or once the node it names has been
 *     fsynced under it, as ext4 and XFS commit a file's own name with the file (PostgreSQL relies on that for the
 *     relation files it creates). Nothing else makes a name durable: a file written, renamed and never fsynced
 *     disappears at a cut, or keeps its old name, with the bytes of its last fsync.
 *   - The durable namespace is written to <backing>/meta (a new file renamed over the old one, so that a daemon killed
 *     while writing it leaves the previous one) whenever a directory is fsynced.
 *
 * A power cut is: every process using the file system and this daemon killed with SIGKILL at the same instant, the
 * mount lazily unmounted (fusermount3 -u -z), and this daemon started again on the same backing directory. At start it
 * rebuilds the volatile state from the durable one: the nodes reachable from the root through durable entries, each
 * file's work copy taken from its data file (empty when it was never fsynced), everything else deleted. Nothing the
 * daemon holds in memory survives, which is the point: what was not made durable is gone.
 *
 * The daemon is single-threaded (one request at a time), so no state needs locking. The kernel's page cache sees only
 * written-through data (no writeback cache), so every write reaches the daemon before write(2) returns.
 *
 * Usage: power-loss-fs <backing-dir> <mountpoint> [-o fuse-options]. Runs in the foreground; its pid is the one to kill.
 */
#define FUSE_USE_VERSION 34
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#define ROOT 1
#define BUCKETS 65536
#define CACHE_SECONDS 1.0

typedef struct {
    char *name;
    uint64_t child;
    uint64_t cookie; /* readdir offset after this entry; increasing within a directory */
} entry;

typedef struct {
    off_t start, end;
} range;

typedef struct node {
    uint64_t id;
    mode_t mode; /* type and permission bits */
    uid_t uid;
    gid_t gid;
    struct timespec atime, mtime, ctime;
    nlink_t nlink;
    uint64_t parent; /* the directory of its latest name */
    int open;
    /* regular files */
    int fd;
    range *dirty;
    size_t ndirty, capdirty;
    off_t min_size; /* the smallest size the file had since its last fsync */
    /* directories */
    entry *entries;
    size_t nentries, capentries;
    uint64_t next_cookie;
    /* symbolic links */
    char *target;
    struct node *next_in_bucket;
} node;

/* What a power cut leaves of a node: its attributes as its directory recorded them, and, for a directory, the entries
 * recorded by its last fsyncdir. */
typedef struct drec {
    uint64_t id;
    mode_t mode;
    uid_t uid;
    gid_t gid;
    char *target;
    bool has_entries;
    entry *entries;
    size_t nentries;
    bool reachable; /* scratch for the walk from the root */
    struct drec *next_in_bucket;
} drec;

static char *backing;
static node *nodes[BUCKETS];
static drec *drecs[BUCKETS];
static uint64_t next_id = ROOT + 1;

static void die(const char *what) {
    perror(what);
    exit(70);
}

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n, size);
    if (p == NULL) die("calloc");
    return p;
}

static void *xrealloc(void *p, size_t size) {
    p = realloc(p, size);
    if (p == NULL) die("realloc");
    return p;
}

static char *path_of(const char *dir, uint64_t id) {
    char *path;
    if (asprintf(&path, "%s/%s/%llu", backing, dir, (unsigned long long) id) < 0) die("asprintf");
    return path;
}

/* ---- tables ---- */

static node *find_node(uint64_t id) {
    for (node *n = nodes[id % BUCKETS]; n != NULL; n = n->next_in_bucket)
        if (n->id == id) return n;
    return NULL;
}

static drec *find_drec(uint64_t id) {
    for (drec *d = drecs[id % BUCKETS]; d != NULL; d = d->next_in_bucket)
        if (d->id == id) return d;
    return NULL;
}

static drec *drec_for(uint64_t id) {
    drec *d = find_drec(id);
    if (d == NULL) {
        d = xcalloc(1, sizeof *d);
        d->id = id;
        d->next_in_bucket = drecs[id % BUCKETS];
        drecs[id % BUCKETS] = d;
    }
    return d;
}

static void free_entries(entry *entries, size_t n) {
    for (size_t i = 0; i < n; i++) free(entries[i].name);
    free(entries);
}

static void drop_drec(uint64_t id) {
    drec **link = &drecs[id % BUCKETS];
    while (*link != NULL && (*link)->id != id) link = &(*link)->next_in_bucket;
    drec *d = *link;
    if (d == NULL) return;
    *link = d->next_in_bucket;
    free_entries(d->entries, d->nentries);
    free(d->target);
    free(d);
}

static node *new_node(uint64_t id, mode_t mode, uid_t uid, gid_t gid) {
    node *n = xcalloc(1, sizeof *n);
    n->id = id;
    n->mode = mode;
    n->uid = uid;
    n->gid = gid;
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    n->atime = n->ctime = n->mtime;
    n->fd = -1;
    n->next_cookie = 3; /* 1 and 2 are "." and ".." */
    n->next_in_bucket = nodes[id % BUCKETS];
    nodes[id % BUCKETS] = n;
    return n;
}

/* A node nobody names or holds open any more: its work copy goes; its data file stays while a durable entry may name
 * it (the next meta write prunes it). */
static void release_if_unused(node *n) {
    if (n->nlink > 0 || n->open > 0 || n->fd < 0) return;
    close(n->fd);
    n->fd = -1;
    char *work = path_of("work", n->id);
    unlink(work);
    free(work);
}

/* ---- directories ---- */

static entry *find_entry(node *dir, const char *name, size_t *index) {
    for (size_t i = 0; i < dir->nentries; i++) {
        if (strcmp(dir->entries[i].name, name) == 0) {
            if (index != NULL) *index = i;
            return &dir->entries[i];
        }
    }
    return NULL;
}

static void add_entry(node *dir, const char *name, uint64_t child) {
    if (dir->nentries == dir->capentries) {
        dir->capentries = dir->capentries == 0 ? 8 : dir->capentries * 2;
        dir->entries = xrealloc(dir->entries, dir->capentries * sizeof(entry));
    }
    dir->entries[dir->nentries++] = (entry){strdup(name), child, dir->next_cookie++};
    node *named = find_node(child);
    if (named != NULL) named->parent = dir->id;
    clock_gettime(CLOCK_REALTIME, &dir->mtime);
    dir->ctime = dir->mtime;
}

static void remove_entry(node *dir, size_t index) {
    free(dir->entries[index].name);
    memmove(&dir->entries[index], &dir->entries[index + 1], (dir->nentries - index - 1) * sizeof(entry));
    dir->nentries--;
    clock_gettime(CLOCK_REALTIME, &dir->mtime);
    dir->ctime = dir->mtime;
}

/* ---- regular files ---- */

static off_t size_of(node *n) {
    if (S_ISDIR(n->mode)) return 4096;
    if (S_ISLNK(n->mode)) return (off_t) strlen(n->target);
    struct stat st;
    if (n->fd < 0 || fstat(n->fd, &st) != 0) return 0;
    return st.st_size;
}

/* Remembers [start, end) as written since the last fsync, merged with the ranges it touches; kept sorted. */
static void mark_dirty(node *n, off_t start, off_t end) {
    size_t i = 0;
    while (i < n->ndirty && n->dirty[i].end < start) i++;
    size_t j = i;
    while (j < n->ndirty && n->dirty[j].start <= end) {
        if (n->dirty[j].start < start) start = n->dirty[j].start;
        if (n->dirty[j].end > end) end = n->dirty[j].end;
        j++;
    }
    if (j == i) {
        if (n->ndirty == n->capdirty) {
            n->capdirty = n->capdirty == 0 ? 8 : n->capdirty * 2;
            n->dirty = xrealloc(n->dirty, n->capdirty * sizeof(range));
        }
        memmove(&n->dirty[i + 1], &n->dirty[i], (n->ndirty - i) * sizeof(range));
        n->ndirty++;
    } else if (j > i + 1) {
        memmove(&n->dirty[i + 1], &n->dirty[j], (n->ndirty - j) * sizeof(range));
        n->ndirty -= j - i - 1;
    }
    n->dirty[i] = (range){start, end};
}

static int copy_range(int from, int to, off_t start, off_t end) {
    static char buffer[1 << 20];
    while (start < end) {
        size_t want = (size_t) (end - start) < sizeof buffer ? (size_t) (end - start) : sizeof buffer;
        ssize_t got = pread(from, buffer, want, start);
        if (got < 0) return -errno;
        if (got == 0) break; /* past the end: a later truncation took it */
        for (ssize_t done = 0; done < got;) {
            ssize_t put = pwrite(to, buffer + done, (size_t) (got - done), start + done);
            if (put < 0) return -errno;
            done += put;
        }
        start += got;
    }
    return 0;
}

/* fsync of a file: its size and the ranges written since the last one reach its data file. */
static int make_file_durable(node *n) {
    if (n->fd < 0) return 0;
    char *path = path_of("data", n->id);
    int data = open(path, O_RDWR | O_CREAT, 0600);
    free(path);
    if (data < 0) return -errno;
    off_t size = size_of(n);
    int err = 0;
    if (ftruncate(data, n->min_size < size ? n->min_size : size) != 0 || ftruncate(data, size) != 0) err = -errno;
    for (size_t i = 0; err == 0 && i < n->ndirty; i++) err = copy_range(n->fd, data, n->dirty[i].start, n->dirty[i].end);
    close(data);
    if (err == 0) {
        n->ndirty = 0;
        n->min_size = size;
    }
    return err;
}

/* ---- the durable namespace ---- */

static void hex(FILE *out, const char *s) {
    for (; *s != '\0'; s++) fprintf(out, "%02x", (unsigned char) *s);
}

static char *unhex(const char *s) {
    size_t n = strlen(s) / 2;
    char *out = xcalloc(n + 1, 1);
    for (size_t i = 0; i < n; i++) sscanf(s + 2 * i, "%2hhx", (unsigned char *) &out[i]);
    return out;
}

static void mark_reachable(drec *d) {
    if (d == NULL || d->reachable) return;
    d->reachable = true;
    for (size_t i = 0; i < d->nentries; i++) mark_reachable(find_drec(d->entries[i].child));
}

static bool alive(uint64_t id) {
    node *n = find_node(id);
    return n != NULL && (n->nlink > 0 || n->open > 0);
}

/* Drops durable records nothing can reach any more, and their data files; returns nothing. */
static void prune(void) {
    for (size_t b = 0; b < BUCKETS; b++)
        for (drec *d = drecs[b]; d != NULL; d = d->next_in_bucket) d->reachable = false;
    mark_reachable(find_drec(ROOT));
    for (size_t b = 0; b < BUCKETS; b++) {
        drec *d = drecs[b];
        while (d != NULL) {
            drec *next = d->next_in_bucket;
            if (!d->reachable && !alive(d->id)) {
                char *data = path_of("data", d->id);
                unlink(data);
                free(data);
                drop_drec(d->id);
            }
            d = next;
        }
    }
}

static int write_meta(void) {
    prune();
    char *tmp, *meta;
    if (asprintf(&tmp, "%s/meta.tmp", backing) < 0 || asprintf(&meta, "%s/meta", backing) < 0) die("asprintf");
    FILE *out = fopen(tmp, "w");
    if (out == NULL) return -errno;
    fprintf(out, "power-loss-fs 1\nnext %llu\n", (unsigned long long) next_id);
    for (size_t b = 0; b < BUCKETS; b++) {
        for (drec *d = drecs[b]; d != NULL; d = d->next_in_bucket) {
            fprintf(out, "N %llu %o %u %u %d ", (unsigned long long) d->id, (unsigned) d->mode, (unsigned) d->uid,
                    (unsigned) d->gid, d->has_entries ? 1 : 0);
            if (d->target != NULL && d->target[0] != '\0') hex(out, d->target);
            else fputc('-', out);
            fputc('\n', out);
            for (size_t i = 0; i < d->nentries; i++) {
                fprintf(out, "E %llu %llu ", (unsigned long long) d->id, (unsigned long long) d->entries[i].child);
                hex(out, d->entries[i].name);
                fputc('\n', out);
            }
        }
    }
    int err = 0;
    if (fclose(out) != 0) err = -errno;
    if (err == 0 && rename(tmp, meta) != 0) err = -errno;
    free(tmp);
    free(meta);
    return err;
}

static void record_attributes(node *n) {
    drec *d = drec_for(n->id);
    d->mode = n->mode;
    d->uid = n->uid;
    d->gid = n->gid;
    free(d->target);
    d->target = n->target != NULL ? strdup(n->target) : NULL;
}

/* The node's latest name, in its directory's durable entries, replacing whatever the durable entries of any directory
 * held for that name or that node: what an fsync of the node itself makes durable. Returns whether anything changed. */
static bool record_own_name(node *n) {
    if (n->id == ROOT || n->nlink == 0) return false;
    node *dir = find_node(n->parent);
    const char *name = NULL;
    for (size_t i = 0; dir != NULL && i < dir->nentries; i++)
        if (dir->entries[i].child == n->id) name = dir->entries[i].name;
    if (name == NULL) return false;
    drec *d = drec_for(dir->id);
    size_t same = 0;
    bool found = false;
    for (size_t i = 0; i < d->nentries; i++) {
        if (d->entries[i].child == n->id) same++;
        if (d->entries[i].child == n->id && strcmp(d->entries[i].name, name) == 0) found = true;
    }
    if (found && same == 1) {
        record_attributes(n);
        return false;
    }
    if (!d->has_entries) {
        record_attributes(dir);
        d->has_entries = true;
    }
    for (size_t b = 0; b < BUCKETS; b++) {
        for (drec *r = drecs[b]; r != NULL; r = r->next_in_bucket) {
            size_t kept = 0;
            for (size_t i = 0; i < r->nentries; i++) {
                bool gone = r->entries[i].child == n->id || (r == d && strcmp(r->entries[i].name, name) == 0);
                if (gone) free(r->entries[i].name);
                else r->entries[kept++] = r->entries[i];
            }
            r->nentries = kept;
        }
    }
    d->entries = xrealloc(d->entries, (d->nentries + 1) * sizeof(entry));
    d->entries[d->nentries++] = (entry){strdup(name), n->id, 0};
    record_attributes(n);
    return true;
}

/* fsyncdir: the directory's entries, and what they name, become what a cut leaves, and so does its own name. */
static int make_directory_durable(node *dir) {
    record_attributes(dir);
    drec *d = drec_for(dir->id);
    free_entries(d->entries, d->nentries);
    d->entries = xcalloc(dir->nentries + 1, sizeof(entry));
    d->nentries = dir->nentries;
    d->has_entries = true;
    for (size_t i = 0; i < dir->nentries; i++) {
        d->entries[i] = (entry){strdup(dir->entries[i].name), dir->entries[i].child, 0};
        node *child = find_node(dir->entries[i].child);
        if (child != NULL) record_attributes(child);
    }
    record_own_name(dir);
    return write_meta();
}

/* ---- start: the volatile state rebuilt from the durable one ---- */

static void load_meta(void) {
    char *meta;
    if (asprintf(&meta, "%s/meta", backing) < 0) die("asprintf");
    FILE *in = fopen(meta, "r");
    free(meta);
    if (in == NULL) {
        if (errno != ENOENT) die("meta");
        drec *root = drec_for(ROOT);
        root->mode = S_IFDIR | 0755;
        root->uid = getuid();
        root->gid = getgid();
        root->has_entries = true;
        return;
    }
    char line[8192];
    while (fgets(line, sizeof line, in) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        unsigned long long id, child;
        unsigned mode, uid, gid;
        int has_entries;
        char text[8000];
        if (sscanf(line, "next %llu", &id) == 1) {
            if (id > next_id) next_id = id;
        } else if (sscanf(line, "N %llu %o %u %u %d %7999s", &id, &mode, &uid, &gid, &has_entries, text) == 6) {
            drec *d = drec_for(id);
            d->mode = mode;
            d->uid = uid;
            d->gid = gid;
            d->has_entries = has_entries != 0;
            d->target = strcmp(text, "-") == 0 ? NULL : unhex(text);
        } else if (sscanf(line, "E %llu %llu %7999s", &id, &child, text) == 3) {
            drec *d = drec_for(id);
            d->entries = xrealloc(d->entries, (d->nentries + 1) * sizeof(entry));
            d->entries[d->nentries++] = (entry){unhex(text), child, 0};
        }
    }
    fclose(in);
}

static void empty_directory(const char *name) {
    char *path;
    if (asprintf(&path, "%s/%s", backing, name) < 0) die("asprintf");
    mkdir(path, 0700);
    DIR *dir = opendir(path);
    if (dir == NULL) die(path);
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.') continue;
        unsigned long long id = strtoull(e->d_name, NULL, 10);
        if (id >= next_id) next_id = id + 1;
        if (strcmp(name, "work") == 0 || find_drec(id) == NULL || !find_drec(id)->reachable) unlinkat(dirfd(dir), e->d_name, 0);
    }
    closedir(dir);
    free(path);
}

static void build_volatile_state(void) {
    for (size_t b = 0; b < BUCKETS; b++)
        for (drec *d = drecs[b]; d != NULL; d = d->next_in_bucket) d->reachable = false;
    mark_reachable(find_drec(ROOT));
    empty_directory("work");
    empty_directory("data");
    for (size_t b = 0; b < BUCKETS; b++) {
        for (drec *d = drecs[b]; d != NULL; d = d->next_in_bucket) {
            if (!d->reachable) continue;
            node *n = new_node(d->id, d->mode, d->uid, d->gid);
            if (d->target != NULL) n->target = strdup(d->target);
            if (S_ISREG(n->mode)) {
                char *work = path_of("work", d->id), *data = path_of("data", d->id);
                n->fd = open(work, O_RDWR | O_CREAT | O_TRUNC, 0600);
                if (n->fd < 0) die(work);
                int from = open(data, O_RDONLY);
                if (from >= 0) {
                    struct stat st;
                    fstat(from, &st);
                    if (copy_range(from, n->fd, 0, st.st_size) != 0 || ftruncate(n->fd, st.st_size) != 0) die(data);
                    close(from);
                }
                n->min_size = size_of(n);
                free(work);
                free(data);
            } else if (S_ISLNK(n->mode) && n->target == NULL) {
                n->target = strdup("");
            }
        }
    }
    for (size_t b = 0; b < BUCKETS; b++) {
        for (drec *d = drecs[b]; d != NULL; d = d->next_in_bucket) {
            if (!d->reachable) continue;
            node *dir = find_node(d->id);
            for (size_t i = 0; i < d->nentries; i++) {
                node *child = find_node(d->entries[i].child);
                if (child == NULL) continue;
                add_entry(dir, d->entries[i].name, child->id);
                child->nlink++;
            }
        }
    }
    node *root = find_node(ROOT);
    if (root == NULL) die("no root in meta");
    root->nlink++;
    for (size_t b = 0; b < BUCKETS; b++)
        for (node *n = nodes[b]; n != NULL; n = n->next_in_bucket)
            if (S_ISDIR(n->mode)) n->nlink = 2;
    if (write_meta() != 0) die("meta");
}

/* ---- FUSE operations ---- */

static void fill_stat(node *n, struct stat *st) {
    memset(st, 0, sizeof *st);
    st->st_ino = n->id;
    st->st_mode = n->mode;
    st->st_nlink = n->nlink;
    st->st_uid = n->uid;
    st->st_gid = n->gid;
    st->st_size = size_of(n);
    st->st_blksize = 4096;
    st->st_blocks = (st->st_size + 511) / 512;
    st->st_atim = n->atime;
    st->st_mtim = n->mtime;
    st->st_ctim = n->ctime;
}

/* What lookup, mkdir, create and link tell the kernel of a node. */
static struct fuse_entry_param entry_of(node *n) {
    struct fuse_entry_param e;
    memset(&e, 0, sizeof e);
    e.ino = n->id;
    e.attr_timeout = CACHE_SECONDS;
    e.entry_timeout = CACHE_SECONDS;
    fill_stat(n, &e.attr);
    return e;
}

static void reply_node(fuse_req_t req, node *n) {
    struct fuse_entry_param e = entry_of(n);
    fuse_reply_entry(req, &e);
}

static node *directory(fuse_ino_t ino, int *err) {
    node *n = find_node(ino);
    if (n == NULL) *err = ENOENT;
    else if (!S_ISDIR(n->mode)) *err = ENOTDIR;
    else return n;
    return NULL;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name) {
    int err = 0;
    node *dir = directory(parent, &err);
    if (dir == NULL) {
        fuse_reply_err(req, err);
        return;
    }
    entry *e = find_entry(dir, name, NULL);
    if (e == NULL) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    reply_node(req, find_node(e->child));
}

static void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup) {
    (void) ino;
    (void) nlookup;
    fuse_reply_none(req);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    if (n == NULL) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct stat st;
    fill_stat(n, &st);
    fuse_reply_attr(req, &st, CACHE_SECONDS);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    if (n == NULL) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    if (to_set & FUSE_SET_ATTR_MODE) n->mode = (n->mode & S_IFMT) | (attr->st_mode & 07777);
    if (to_set & FUSE_SET_ATTR_UID) n->uid = attr->st_uid;
    if (to_set & FUSE_SET_ATTR_GID) n->gid = attr->st_gid;
    if (to_set & FUSE_SET_ATTR_SIZE) {
        if (!S_ISREG(n->mode)) {
            fuse_reply_err(req, EISDIR);
            return;
        }
        if (ftruncate(n->fd, attr->st_size) != 0) {
            fuse_reply_err(req, errno);
            return;
        }
        if (attr->st_size < n->min_size) n->min_size = attr->st_size;
        n->mtime = now;
    }
    if (to_set & FUSE_SET_ATTR_ATIME) n->atime = attr->st_atim;
    if (to_set & FUSE_SET_ATTR_ATIME_NOW) n->atime = now;
    if (to_set & FUSE_SET_ATTR_MTIME) n->mtime = attr->st_mtim;
    if (to_set & FUSE_SET_ATTR_MTIME_NOW) n->mtime = now;
    n->ctime = now;
    struct stat st;
    fill_stat(n, &st);
    fuse_reply_attr(req, &st, CACHE_SECONDS);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino) {
    node *n = find_node(ino);
    if (n == NULL || !S_ISLNK(n->mode)) fuse_reply_err(req, EINVAL);
    else fuse_reply_readlink(req, n->target);
}

/* A new node named `name` in `parent`; NULL with *err set when the name is taken or the parent is no directory. */
static node *make(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, int *err) {
    node *dir = directory(parent, err);
    if (dir == NULL) return NULL;
    if (find_entry(dir, name, NULL) != NULL) {
        *err = EEXIST;
        return NULL;
    }
    const struct fuse_ctx *ctx = fuse_req_ctx(req);
    node *n = new_node(next_id++, mode, ctx->uid, ctx->gid);
    if (S_ISREG(mode)) {
        char *work = path_of("work", n->id);
        n->fd = open(work, O_RDWR | O_CREAT | O_TRUNC, 0600);
        free(work);
        if (n->fd < 0) {
            *err = errno;
            return NULL;
        }
    }
    n->nlink = S_ISDIR(mode) ? 2 : 1;
    add_entry(dir, name, n->id);
    return n;
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev) {
    (void) rdev;
    if (!S_ISREG(mode)) {
        fuse_reply_err(req, EPERM);
        return;
    }
    int err = 0;
    node *n = make(req, parent, name, mode, &err);
    if (n == NULL) fuse_reply_err(req, err);
    else reply_node(req, n);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode) {
    int err = 0;
    node *n = make(req, parent, name, S_IFDIR | (mode & 07777), &err);
    if (n == NULL) fuse_reply_err(req, err);
    else reply_node(req, n);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name) {
    int err = 0;
    node *n = make(req, parent, name, S_IFLNK | 0777, &err);
    if (n == NULL) {
        fuse_reply_err(req, err);
        return;
    }
    n->target = strdup(link);
    reply_node(req, n);
}

static void unname(fuse_req_t req, fuse_ino_t parent, const char *name, bool want_directory) {
    int err = 0;
    node *dir = directory(parent, &err);
    size_t index;
    entry *e = dir == NULL ? NULL : find_entry(dir, name, &index);
    if (dir == NULL || e == NULL) {
        fuse_reply_err(req, dir == NULL ? err : ENOENT);
        return;
    }
    node *n = find_node(e->child);
    if (want_directory && !S_ISDIR(n->mode)) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    if (!want_directory && S_ISDIR(n->mode)) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if (want_directory && n->nentries > 0) {
        fuse_reply_err(req, ENOTEMPTY);
        return;
    }
    remove_entry(dir, index);
    n->nlink = S_ISDIR(n->mode) ? 0 : n->nlink - 1;
    clock_gettime(CLOCK_REALTIME, &n->ctime);
    release_if_unused(n);
    fuse_reply_err(req, 0);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name) {
    unname(req, parent, name, false);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name) {
    unname(req, parent, name, true);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
                      unsigned int flags) {
    int err = 0;
    node *from = directory(parent, &err), *to = from == NULL ? NULL : directory(newparent, &err);
    if (from == NULL || to == NULL) {
        fuse_reply_err(req, err);
        return;
    }
    if (flags & ~RENAME_NOREPLACE) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    size_t index, replaced_index;
    entry *e = find_entry(from, name, &index);
    if (e == NULL) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    uint64_t moving = e->child;
    node *n = find_node(moving);
    entry *existing = find_entry(to, newname, &replaced_index);
    if (existing != NULL && existing->child == moving) {
        fuse_reply_err(req, 0);
        return;
    }
    if (existing != NULL) {
        if (flags & RENAME_NOREPLACE) {
            fuse_reply_err(req, EEXIST);
            return;
        }
        node *old = find_node(existing->child);
        if (S_ISDIR(old->mode) && !S_ISDIR(n->mode)) {
            fuse_reply_err(req, EISDIR);
            return;
        }
        if (!S_ISDIR(old->mode) && S_ISDIR(n->mode)) {
            fuse_reply_err(req, ENOTDIR);
            return;
        }
        if (S_ISDIR(old->mode) && old->nentries > 0) {
            fuse_reply_err(req, ENOTEMPTY);
            return;
        }
        remove_entry(to, replaced_index);
        old->nlink = S_ISDIR(old->mode) ? 0 : old->nlink - 1;
        release_if_unused(old);
        if (to == from && replaced_index < index) index--;
    }
    remove_entry(from, index);
    add_entry(to, newname, moving);
    clock_gettime(CLOCK_REALTIME, &n->ctime);
    fuse_reply_err(req, 0);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname) {
    int err = 0;
    node *dir = directory(newparent, &err);
    node *n = find_node(ino);
    if (dir == NULL || n == NULL) {
        fuse_reply_err(req, dir == NULL ? err : ENOENT);
        return;
    }
    if (S_ISDIR(n->mode)) {
        fuse_reply_err(req, EPERM);
        return;
    }
    if (find_entry(dir, newname, NULL) != NULL) {
        fuse_reply_err(req, EEXIST);
        return;
    }
    add_entry(dir, newname, n->id);
    n->nlink++;
    reply_node(req, n);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    node *n = find_node(ino);
    if (n == NULL || !S_ISREG(n->mode)) {
        fuse_reply_err(req, n == NULL ? ENOENT : EISDIR);
        return;
    }
    if (fi->flags & O_TRUNC) {
        if (ftruncate(n->fd, 0) != 0) {
            fuse_reply_err(req, errno);
            return;
        }
        n->min_size = 0;
    }
    n->open++;
    fuse_reply_open(req, fi);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi) {
    int err = 0;
    node *n = make(req, parent, name, S_IFREG | (mode & 07777), &err);
    if (n == NULL) {
        fuse_reply_err(req, err);
        return;
    }
    n->open++;
    struct fuse_entry_param e = entry_of(n);
    fuse_reply_create(req, &e, fi);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    char *buffer = malloc(size == 0 ? 1 : size);
    if (buffer == NULL) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    ssize_t got = pread(n->fd, buffer, size, off);
    if (got < 0) fuse_reply_err(req, errno);
    else fuse_reply_buf(req, buffer, (size_t) got);
    free(buffer);
}

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
                     struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    size_t done = 0;
    while (done < size) {
        ssize_t put = pwrite(n->fd, buf + done, size - done, off + (off_t) done);
        if (put < 0) {
            fuse_reply_err(req, errno);
            return;
        }
        done += (size_t) put;
    }
    mark_dirty(n, off, off + (off_t) size);
    clock_gettime(CLOCK_REALTIME, &n->mtime);
    n->ctime = n->mtime;
    fuse_reply_write(req, size);
}

static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void) ino;
    (void) fi;
    fuse_reply_err(req, 0);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    if (n != NULL) {
        n->open--;
        release_if_unused(n);
    }
    fuse_reply_err(req, 0);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
    (void) datasync;
    (void) fi;
    node *n = find_node(ino);
    if (n == NULL) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    int err = make_file_durable(n);
    if (err == 0 && record_own_name(n)) err = write_meta();
    fuse_reply_err(req, -err);
}

static void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    int err = 0;
    if (directory(ino, &err) == NULL) fuse_reply_err(req, err);
    else fuse_reply_open(req, fi);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi) {
    (void) fi;
    int err = 0;
    node *dir = directory(ino, &err);
    if (dir == NULL) {
        fuse_reply_err(req, err);
        return;
    }
    char *buffer = xcalloc(1, size);
    size_t used = 0;
    struct stat st;
    memset(&st, 0, sizeof st);
    const char *dots[] = {".", ".."};
    for (off_t cookie = 1; cookie <= 2; cookie++) {
        if (off >= cookie) continue;
        st.st_ino = dir->id;
        st.st_mode = S_IFDIR;
        size_t need = fuse_add_direntry(req, buffer + used, size - used, dots[cookie - 1], &st, cookie);
        if (need > size - used) goto full;
        used += need;
    }
    for (size_t i = 0; i < dir->nentries; i++) {
        if ((uint64_t) off >= dir->entries[i].cookie) continue;
        node *child = find_node(dir->entries[i].child);
        st.st_ino = child->id;
        st.st_mode = child->mode;
        size_t need = fuse_add_direntry(req, buffer + used, size - used, dir->entries[i].name, &st,
                                        (off_t) dir->entries[i].cookie);
        if (need > size - used) break;
        used += need;
    }
full:
    fuse_reply_buf(req, buffer, used);
    free(buffer);
}

static void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi) {
    (void) ino;
    (void) fi;
    fuse_reply_err(req, 0);
}

static void op_fsyncdir(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi) {
    (void) datasync;
    (void) fi;
    int err = 0;
    node *dir = directory(ino, &err);
    fuse_reply_err(req, dir == NULL ? err : -make_directory_durable(dir));
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino) {
    (void) ino;
    struct statvfs st;
    if (statvfs(backing, &st) != 0) fuse_reply_err(req, errno);
    else fuse_reply_statfs(req, &st);
}

static void op_access(fuse_req_t req, fuse_ino_t ino, int mask) {
    (void) ino;
    (void) mask;
    fuse_reply_err(req, 0); /* default_permissions: the kernel checks */
}

static void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                         struct fuse_file_info *fi) {
    (void) fi;
    node *n = find_node(ino);
    if (mode != 0) {
        fuse_reply_err(req, EOPNOTSUPP);
        return;
    }
    if (offset + length > size_of(n) && ftruncate(n->fd, offset + length) != 0) {
        fuse_reply_err(req, errno);
        return;
    }
    fuse_reply_err(req, 0);
}

static const struct fuse_lowlevel_ops operations = {
    .lookup = op_lookup,
    .forget = op_forget,
    .getattr = op_getattr,
    .setattr = op_setattr,
    .readlink = op_readlink,
    .mknod = op_mknod,
    .mkdir = op_mkdir,
    .unlink = op_unlink,
    .rmdir = op_rmdir,
    .symlink = op_symlink,
    .rename = op_rename,
    .link = op_link,
    .open = op_open,
    .read = op_read,
    .write = op_write,
    .flush = op_flush,
    .release = op_release,
    .fsync = op_fsync,
    .opendir = op_opendir,
    .readdir = op_readdir,
    .releasedir = op_releasedir,
    .fsyncdir = op_fsyncdir,
    .statfs = op_statfs,
    .access = op_access,
    .create = op_create,
    .fallocate = op_fallocate,
};

int main(int argc, char *argv[]) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s <backing-dir> <mountpoint> [-o fuse-options]\n", argv[0]);
        return 64;
    }
    backing = realpath(argv[1], NULL);
    if (backing == NULL) die(argv[1]);
    const char *mountpoint = argv[2];
    struct fuse_args args = FUSE_ARGS_INIT(0, NULL);
    fuse_opt_add_arg(&args, argv[0]);
    for (int i = 3; i < argc; i++) fuse_opt_add_arg(&args, argv[i]);

    load_meta();
    build_volatile_state();

    struct fuse_session *session = fuse_session_new(&args, &operations, sizeof operations, NULL);
    if (session == NULL) return 70;
    if (fuse_session_mount(session, mountpoint) != 0) return 70;
    fprintf(stderr, "power-loss-fs: %s mounted on %s\n", backing, mountpoint);
    int result = fuse_session_loop(session);
    fuse_session_unmount(session);
    fuse_session_destroy(session);
    fuse_opt_free_args(&args);
    return result == 0 ? 0 : 1;
}
