package io.durablejournal.testing;

import io.durablejournal.ActionState;
import io.durablejournal.DurableExecutionContext;
import io.durablejournal.store.ActionStateStore;
import io.durablejournal.store.EventIdentity;
import java.util.List;

/**
 * A store of a user's own, as a user factory would return it: it wraps another store (as a
 * decorator adding auditing or caching would) and is not one of the library's classes, so the
 * operators know it only through the {@link ActionStateStore} interface. It forwards the methods a
 * store must have and {@link #liveEntries()}; the other defaults stay the interface's, as in a
 * user's decorator that overrides only what it must. Tests extend it to observe one method.
 */
public class ForwardingStore implements ActionStateStore {
    private final ActionStateStore inner;

    public ForwardingStore(ActionStateStore inner) {
        this.inner = inner;
    }

    /** The store this one forwards to. */
    protected final ActionStateStore inner() {
        return inner;
    }

    @Override
    public void put(Object key, long seqNum, String actionName, EventIdentity event, ActionState state) {
        inner().put(key, seqNum, actionName, event, state);
    }

    @Override
    public ActionState get(Object key, long seqNum, String actionName, EventIdentity event) {
        return inner().get(key, seqNum, actionName, event);
    }

    @Override
    public DurableExecutionContext openContext(Object key, long seqNum, String actionName, EventIdentity event, ActionState initial) {
        return inner().openContext(key, seqNum, actionName, event, initial);
    }

    @Override
    public void rebuildState(List<byte[]> recoveryMarkers) {
        inner().rebuildState(recoveryMarkers);
    }

    @Override
    public void pruneState(Object key, long seqNumUpTo) {
        inner().pruneState(key, seqNumUpTo);
    }

    @Override
    public long liveEntries() {
        return inner().liveEntries();
    }

    @Override
    public byte[] getRecoveryMarker() {
        return inner().getRecoveryMarker();
    }

    @Override
    public void close() {
        inner().close();
    }

    @Override
    public String toString() {
        return "ForwardingStore{" + inner() + "}";
    }

    @Override
    public boolean retainsCompleted() {
        return inner.retainsCompleted();
    }
}
