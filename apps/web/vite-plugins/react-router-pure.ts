import type { Plugin } from 'vite';

const reactRouterModule = /[\\/]react-router[\\/]dist[\\/]production[\\/][\w/-]+\.js$/;
const topLevelComponent = /^((?:var|const) [\w$]+ = )(React[\w$]*\.(?:forwardRef|memo)\()/gm;
const topLevelDisplayName = /^[\w$]+\.displayName = "[\w$.]+";$/gm;

/**
 * react-router's components (`const NavLink = React.forwardRef(...)` and a `displayName`) are not
 * marked pure, so the entry chunk kept those the app never uses (docs/rules.md#budgets). This marks
 * them pure and drops the names, which only development tools read.
 */
export function reactRouterPureComponents(): Plugin {
  return {
    name: 'entry-react-router-pure-components',
    apply: 'build',
    transform: {
      filter: { id: reactRouterModule },
      handler(code) {
        let components = 0;
        const annotated = code
          .replace(topLevelComponent, (_match, declaration: string, call: string) => {
            components += 1;
            return `${declaration}/* @__PURE__ */ ${call}`;
          })
          .replace(topLevelDisplayName, '');
        if (components === 0) return null;
        return { code: annotated, map: null };
      },
    },
  };
}
