package io.durablejournal.flink.replay;

import io.durablejournal.store.RetainedAction;
import java.util.ArrayList;
import java.util.List;

/**
 * Which recorded actions a replay takes: by business key (as the inspection tool prints it,
 * {@code str:user-1}), action name, completion time window, and at most a count, oldest first.
 * Immutable; each setter returns a new selection. {@link #all()} takes everything.
 */
public final class ReplaySelection {
    private final String key;
    private final String actionName;
    private final long sinceMillis;
    private final long untilMillis;
    private final long limit;

    private ReplaySelection(String key, String actionName, long sinceMillis, long untilMillis, long limit) {
        this.key = key;
        this.actionName = actionName;
        this.sinceMillis = sinceMillis;
        this.untilMillis = untilMillis;
        this.limit = limit;
    }

    public static ReplaySelection all() {
        return new ReplaySelection(null, null, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE);
    }

    public ReplaySelection key(String describedKey) {
        return new ReplaySelection(describedKey, actionName, sinceMillis, untilMillis, limit);
    }

    public ReplaySelection action(String name) {
        return new ReplaySelection(key, name, sinceMillis, untilMillis, limit);
    }

    /** Actions completed at or after {@code since} and before {@code until} (Unix milliseconds). */
    public ReplaySelection completedBetween(long since, long until) {
        return new ReplaySelection(key, actionName, since, until, limit);
    }

    public ReplaySelection limit(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("limit must not be negative: " + count);
        }
        return new ReplaySelection(key, actionName, sinceMillis, untilMillis, count);
    }

    /** Whether the selection takes actions named {@code name} (it names no action, or this one). */
    public boolean takesAction(String name) {
        return actionName == null || actionName.equals(name);
    }

    /** The recorded actions this selection takes, in their order. */
    public List<RetainedAction> apply(List<RetainedAction> recorded) {
        List<RetainedAction> chosen = new ArrayList<>();
        for (RetainedAction action : recorded) {
            if (chosen.size() >= limit) {
                break;
            }
            boolean matches = (key == null || key.equals(action.getKey()))
                    && (actionName == null || actionName.equals(action.getActionName()))
                    && action.getCompletedAtMillis() >= sinceMillis && action.getCompletedAtMillis() < untilMillis;
            if (matches) {
                chosen.add(action);
            }
        }
        return chosen;
    }
}
