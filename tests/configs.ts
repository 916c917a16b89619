/** Environment configs the integration tests share. */

/** A small, valid frozenlake-mapf config on a `size` grid; `seed` makes each one a different environment. */
export const lake = (seed: number, size = 5) => ({
  size,
  num_agents: 1,
  obstacle_density: 0.1,
  slip_probability: 0,
  max_steps: 40,
  min_goal_distance: 2,
  collision: "soft",
  seed,
});
