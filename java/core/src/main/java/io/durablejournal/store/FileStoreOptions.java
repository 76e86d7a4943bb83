package io.durablejournal.store;

import java.io.Serializable;
import java.time.Duration;
import java.util.Objects;

/**
 * How the file store makes writes durable and when it compacts. Immutable (and serializable, for
 * store factories in a job graph); the defaults are an fsync per acknowledged write and compaction
 * once at least 4 MiB and at least as much as is live are garbage.
 *
 * <p>What an acknowledged durable call survives in each mode (a checkpoint's recovery marker
 * always fsyncs, so what a completed checkpoint saw survives a machine crash in every mode; no
 * mode survives the loss of the disk, which is what the Kafka store is for):
 * <ul>
 *   <li>{@link #syncEachPut()}: a process crash and a machine crash (power loss, kernel panic).</li>
 *   <li>{@link #groupCommitWithin(int, Duration)}: a process crash; a machine crash loses at most
 *       the calls acknowledged in the last {@code maxDelay} (or the last {@code maxBatch} calls).</li>
 *   <li>{@link #groupCommit(int)}: as above, without the time bound: until {@code maxBatch}
 *       records or the next checkpoint.</li>
 *   <li>{@link #osOnly()}: a process crash; a machine crash loses what was acknowledged since the
 *       last checkpoint.</li>
 * </ul>
 *
 * <p>The store's directory is its owner's alone ({@code 0700}, files {@code 0600}); an existing
 * one that group or others can reach is refused unless {@link #permissions} says otherwise (see
 * {@code docs/security.md}).
 */
public final class FileStoreOptions implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final FileStoreOptions DEFAULTS = new FileStoreOptions(0, null, -1, 0, PermissionCheck.REFUSE, null, 0, null);
    /** The batch of {@link #osOnly()}: never reached, so only checkpoints, compaction and close fsync. */
    private static final int NO_BATCH = Integer.MAX_VALUE;

    private final int groupCommit;
    /** Null: no time bound. */
    private final Duration maxSyncDelay;
    private final long minGarbageBytes;
    private final double garbageRatio;
    private final PermissionCheck permissions;

    /**
     * What opening the store does with an existing directory that group or others can read,
     * write or search (journals hold prompts, model answers and tool results). A directory that
     * holds no store yet is made {@code 0700} in every case; files the store makes are always
     * {@code 0600}. The ordinals cross to the native store ({@code file_permission_checks} in
     * tests/vectors/constants.json).
     */
    public enum PermissionCheck {
        /** Refuse to open it: {@code STORE_IO} naming the directory, its mode and the {@code chmod} that fixes it (the default). */
        REFUSE,
        /** Open it as it is, and log a warning naming the directory and its mode. */
        WARN,
        /** Make the directory {@code 0700} and the store's files in it {@code 0600}, log that, and open it. */
        TIGHTEN
    }

    /** Null: completed actions are not retained. */
    private final Duration retainFor;
    private final long retainCount;
    /** Null: none named. */
    private final String planDigest;

    private FileStoreOptions(int groupCommit, Duration maxSyncDelay, long minGarbageBytes, double garbageRatio,
            PermissionCheck permissions, Duration retainFor, long retainCount, String planDigest) {
        this.groupCommit = groupCommit;
        this.maxSyncDelay = maxSyncDelay;
        this.minGarbageBytes = minGarbageBytes;
        this.garbageRatio = garbageRatio;
        this.permissions = permissions;
        this.retainFor = retainFor;
        this.retainCount = retainCount;
        this.planDigest = planDigest;
    }

    private FileStoreOptions(int groupCommit, Duration maxSyncDelay, long minGarbageBytes, double garbageRatio,
            FileStoreOptions retention) {
        this(groupCommit, maxSyncDelay, minGarbageBytes, garbageRatio, retention.permissions, retention.retainFor,
                retention.retainCount, retention.planDigest);
    }

    /**
     * Keeps a copy of each action as it completed (triggering event, every call with its outcome,
     * memory updates, output events, key, sequence number, action name, {@linkplain #planDigest the
     * plan digest}) after the checkpoint prune drops its live entry, for {@code JournalReplayer} to
     * replay a changed agent against (docs/replay.md): at most {@code maxCount}, none older than
     * {@code maxAge}, the oldest dropped first. The copies go to {@code retained.log} in the store
     * directory; the store's segment is byte for byte what it is without this option (the default:
     * nothing is retained). Costs: docs/replay.md, "What retention costs".
     */
    public FileStoreOptions retainCompleted(Duration maxAge, long maxCount) {
        Objects.requireNonNull(maxAge, "maxAge");
        if (maxAge.toMillis() < 1 || maxCount < 1) {
            throw new IllegalArgumentException("retention needs an age of at least 1 ms and a count of at least 1: "
                    + maxAge + ", " + maxCount);
        }
        return new FileStoreOptions(groupCommit, maxSyncDelay, minGarbageBytes, garbageRatio, permissions, maxAge, maxCount,
                planDigest);
    }

    /**
     * Names the agent plan whose actions this store records (e.g. a digest of its definition); kept
     * with each retained action so that a replay can tell which plan recorded it. Null: none.
     */
    public FileStoreOptions planDigest(String digest) {
        return new FileStoreOptions(groupCommit, maxSyncDelay, minGarbageBytes, garbageRatio, permissions, retainFor,
                retainCount, digest);
    }

    /** The age bound of {@link #retainCompleted}, or null when nothing is retained. */
    public Duration getRetainFor() {
        return retainFor;
    }

    /** The count bound of {@link #retainCompleted}, 0 when nothing is retained. */
    public long getRetainCount() {
        return retainCount;
    }

    public String getPlanDigest() {
        return planDigest;
    }

    public static FileStoreOptions defaults() {
        return DEFAULTS;
    }

    /** Every put and journal write returns only after its record is fsynced (the default). */
    public FileStoreOptions syncEachPut() {
        return new FileStoreOptions(0, null, minGarbageBytes, garbageRatio, this);
    }

    /**
     * Writes return once handed to the OS (safe from a crash of the process, not yet from a power
     * loss); one fsync covers every {@code maxBatch} records, and recovery markers (checkpoints),
     * compaction and close fsync whatever is left.
     */
    public FileStoreOptions groupCommit(int maxBatch) {
        if (maxBatch < 1) {
            throw new IllegalArgumentException("group commit needs a batch of at least one record: " + maxBatch);
        }
        return new FileStoreOptions(maxBatch, null, minGarbageBytes, garbageRatio, this);
    }

    /**
     * Group commit with an upper bound on how long an acknowledged write waits for its fsync: one
     * fsync covers every {@code maxBatch} records, and a timer of the store fsyncs whatever is left
     * every {@code maxDelay}. A machine crash loses at most the writes of the last {@code maxDelay}.
     */
    public FileStoreOptions groupCommitWithin(int maxBatch, Duration maxDelay) {
        Objects.requireNonNull(maxDelay, "maxDelay");
        if (maxDelay.isNegative() || maxDelay.isZero()) {
            throw new IllegalArgumentException("maxDelay must be positive: " + maxDelay);
        }
        return new FileStoreOptions(groupCommit(maxBatch).groupCommit, maxDelay, minGarbageBytes, garbageRatio, this);
    }

    /**
     * Writes return once handed to the OS, and only recovery markers (checkpoints), compaction and
     * close fsync: safe from a crash of the process, not from a crash of the machine for what was
     * written since the last checkpoint.
     */
    public FileStoreOptions osOnly() {
        return new FileStoreOptions(NO_BATCH, null, minGarbageBytes, garbageRatio, this);
    }

    /** The time bound of {@link #groupCommitWithin}, or null. */
    public Duration getMaxSyncDelay() {
        return maxSyncDelay;
    }

    /** Compacts on a prune once garbage is at least {@code minGarbageBytes} and {@code garbageRatio} times the live bytes. */
    public FileStoreOptions compaction(long minGarbageBytes, double garbageRatio) {
        if (minGarbageBytes < 0) {
            throw new IllegalArgumentException("minGarbageBytes must not be negative: " + minGarbageBytes);
        }
        if (!(garbageRatio >= 0) || Double.isInfinite(garbageRatio)) {
            throw new IllegalArgumentException("garbageRatio must be a finite number >= 0: " + garbageRatio);
        }
        return new FileStoreOptions(groupCommit, maxSyncDelay, minGarbageBytes, garbageRatio, this);
    }

    /** What opening does with a directory others can reach (see {@link PermissionCheck}). */
    public FileStoreOptions permissions(PermissionCheck check) {
        return new FileStoreOptions(groupCommit, maxSyncDelay, minGarbageBytes, garbageRatio, Objects.requireNonNull(check, "check"),
                retainFor, retainCount, planDigest);
    }

    public PermissionCheck getPermissionCheck() {
        // Null in options serialized by a build before the check existed: theirs is the default.
        return permissions == null ? PermissionCheck.REFUSE : permissions;
    }

    /** 0 for an fsync per write, else the group-commit batch size. */
    public int getGroupCommitBatch() {
        return groupCommit;
    }


    long rawMinGarbageBytes() {
        return minGarbageBytes;
    }

    double garbageRatio() {
        return garbageRatio;
    }

    @Override
    public String toString() {
        String durability = groupCommit == 0 ? "syncEachPut"
                : groupCommit == NO_BATCH ? "osOnly"
                : "groupCommit=" + groupCommit + (maxSyncDelay == null ? "" : " within " + maxSyncDelay.toMillis() + " ms");
        return "FileStoreOptions{" + durability
                + (minGarbageBytes < 0 ? ", default compaction" : ", compaction>=" + minGarbageBytes + "B x" + garbageRatio)
                + (getPermissionCheck() == PermissionCheck.REFUSE ? "" : ", permissions " + permissions)
                + (retainFor == null ? "" : ", retain " + retainCount + " for " + retainFor.toMillis() + " ms")
                + (planDigest == null ? "" : ", plan " + planDigest) + "}";
    }
}
