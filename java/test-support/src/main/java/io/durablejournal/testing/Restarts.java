package io.durablejournal.testing;

import java.time.Duration;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;

/** How a test job restarts after its injected failure. */
public final class Restarts {
    private Restarts() {}

    /** {@code conf}, set to restart the job up to {@code attempts} times, {@code delay} apart. */
    public static Configuration fixedDelay(Configuration conf, int attempts, Duration delay) {
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, attempts);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, delay);
        return conf;
    }
}
