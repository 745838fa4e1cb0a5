import type { Plugin } from 'vite';

const reactRouterChunk = /[\\/]react-router[\\/]dist[\\/]production[\\/]chunk-[\w-]+\.mjs$/;
const topLevelComponent = /^(var [\w$]+ = )(React\d*\.(?:forwardRef|memo)\()/gm;
const topLevelDisplayName = /^[\w$]+\.displayName = "[\w$.]+";$/gm;

/**
 * react-router's components (`var NavLink = React.forwardRef(...)` and a `displayName`) are not
 * marked pure, so the entry chunk kept those the app never uses (DESIGN.md section 8). This marks
 * them pure and drops the names, which only development tools read.
 */
export function reactRouterPureComponents(): Plugin {
  return {
    name: 'entry-react-router-pure-components',
    apply: 'build',
    transform: {
      filter: { id: reactRouterChunk },
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
