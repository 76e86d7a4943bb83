/**
 * What the Flink-facing test suites (java/flink, java/flink-agents, java/kafka) share, written once:
 * <ul>
 *   <li>{@link io.durablejournal.testing.MiniClusters}: a test class's Flink MiniCluster;
 *       {@link io.durablejournal.testing.ReportingMiniCluster}: one whose metrics the tests read;
 *       {@link io.durablejournal.testing.ServiceExtension}: a service (a Kafka broker, a cluster)
 *       and that MiniCluster as one JUnit 5 extension.</li>
 *   <li>{@link io.durablejournal.testing.JobTest}, {@link io.durablejournal.testing.JobTimeout},
 *       {@link io.durablejournal.testing.LongJobTimeout}: the bound of a job test, one per kind.</li>
 *   <li>{@link io.durablejournal.testing.RunRegistry}: how a test meets the sources, actions and
 *       stores Flink deserializes into its MiniCluster (in this JVM), by run id.</li>
 *   <li>{@link io.durablejournal.testing.BurstSource}, {@link io.durablejournal.testing.CheckpointWitness},
 *       {@link io.durablejournal.testing.CheckpointedPositionSource}, {@link io.durablejournal.testing.OnceFlag}:
 *       a failover staged around a completed checkpoint, ordered by latches and monitors, never by sleeping.</li>
 *   <li>{@link io.durablejournal.testing.ForwardingStore}: a store of a user's own, known to the
 *       operators only through the store interface.</li>
 *   <li>{@link io.durablejournal.testing.JobJar}, {@link io.durablejournal.testing.UserCodeLoaders}:
 *       a job jar as a user ships it, run in a MiniCluster's user-code class loaders.</li>
 *   <li>{@link io.durablejournal.testing.Restarts}, {@link io.durablejournal.testing.Checkpoints},
 *       {@link io.durablejournal.testing.JobResults}, {@link io.durablejournal.testing.Failures},
 *       {@link io.durablejournal.testing.RepeatedRuns}: a job's restart strategy, retained
 *       checkpoints, accumulators, failure causes, and side effects that ran twice.</li>
 * </ul>
 * Flink, its test utilities and JUnit are compile-only here: each suite brings its own.
 */
package io.durablejournal.testing;
