package io.durablejournal.testing;

import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.SubtaskScope;
import io.durablejournal.store.ActionStateStore;
import java.io.Serializable;

/**
 * A user's factory that decorates another one's stores, each subtask's store wrapped (as a test
 * observes a store: usually a {@link ForwardingStore} that overrides one method). It opens by
 * scope when asked by scope, so a factory that restores at any parallelism (the Kafka stores)
 * still does behind it.
 */
public final class DecoratedStores implements ActionStateStoreFactory {
    private static final long serialVersionUID = 1L;

    /** Wraps one subtask's store; shipped with the job, so serializable (a lambda of this type is). */
    @FunctionalInterface
    public interface Decorator extends Serializable {
        ActionStateStore decorate(ActionStateStore store, SubtaskScope scope) throws Exception;
    }

    private final ActionStateStoreFactory stores;
    private final Decorator decorator;

    public DecoratedStores(ActionStateStoreFactory stores, Decorator decorator) {
        this.stores = stores;
        this.decorator = decorator;
    }

    @Override
    public ActionStateStore open(int subtaskIndex, int parallelism) {
        throw new UnsupportedOperationException("the operators open a subtask's store by its scope");
    }

    @Override
    public ActionStateStore open(SubtaskScope scope) throws Exception {
        return decorator.decorate(stores.open(scope), scope);
    }

    @Override
    public boolean restoresAtAnyParallelism() {
        return stores.restoresAtAnyParallelism();
    }
}
