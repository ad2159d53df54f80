/** The sandbox's portfolios by what tests use them for (README, "The sandbox"). */
export const LARGE_PORTFOLIO_ID = 7;
export const PRECISION_PORTFOLIO_ID = 13;
export const EXAMPLE_PORTFOLIO_ID = 42;
export const REBALANCE_PORTFOLIO_ID = 77;
export const EMPTY_PORTFOLIO_ID = 101;
export const BROKEN_PORTFOLIO_ID = 500;
