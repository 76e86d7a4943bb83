package io.durablejournal.store;

/**
 * How the file store makes writes durable and when it compacts. Immutable; the defaults are an
 * fsync per acknowledged write and compaction once at least 4 MiB and at least as much as is
 * live are garbage.
 */
public final class FileStoreOptions {
    private static final FileStoreOptions DEFAULTS = new FileStoreOptions(0, -1, 0);

    private final int groupCommit;
    private final long minGarbageBytes;
    private final double garbageRatio;

    private FileStoreOptions(int groupCommit, long minGarbageBytes, double garbageRatio) {
        this.groupCommit = groupCommit;
        this.minGarbageBytes = minGarbageBytes;
        this.garbageRatio = garbageRatio;
    }

    public static FileStoreOptions defaults() {
        return DEFAULTS;
    }

    /** Every put and journal write returns only after its record is fsynced (the default). */
    public FileStoreOptions syncEachPut() {
        return new FileStoreOptions(0, minGarbageBytes, garbageRatio);
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
        return new FileStoreOptions(maxBatch, minGarbageBytes, garbageRatio);
    }

    /** Compacts on a prune once garbage is at least {@code minGarbageBytes} and {@code garbageRatio} times the live bytes. */
    public FileStoreOptions compaction(long minGarbageBytes, double garbageRatio) {
        if (minGarbageBytes < 0) {
            throw new IllegalArgumentException("minGarbageBytes must not be negative: " + minGarbageBytes);
        }
        if (!(garbageRatio >= 0) || Double.isInfinite(garbageRatio)) {
            throw new IllegalArgumentException("garbageRatio must be a finite number >= 0: " + garbageRatio);
        }
        return new FileStoreOptions(groupCommit, minGarbageBytes, garbageRatio);
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
        return "FileStoreOptions{" + (groupCommit == 0 ? "syncEachPut" : "groupCommit=" + groupCommit)
                + (minGarbageBytes < 0 ? ", default compaction" : ", compaction>=" + minGarbageBytes + "B x" + garbageRatio) + "}";
    }
}
